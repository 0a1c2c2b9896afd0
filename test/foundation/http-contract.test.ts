import Fastify from 'fastify';
import { describe, expect, it } from 'vitest';
import { buildApp } from '../../src/app.js';
import { frameworkErrors } from '../../src/plugins/errors.js';
import { api, expectError, probeRoutes, setupTestApp, testConfig } from '../helpers/app.js';
import { newTenant, newUser } from '../helpers/factories.js';

const ctx = setupTestApp({}, probeRoutes);

const json = { 'content-type': 'application/json' };

describe('error shape', () => {
  it('400 validation names the field', async () => {
    const t = await newTenant(ctx);
    const writer = await newUser(ctx, t, ['contacts:write']);
    const res = await api(ctx.app, writer.token).post('/api/test/echo', { name: 'x'.repeat(201) });
    expect(expectError(res, 400)).toBe('body/name must NOT have more than 200 characters');
    expect(res.json().error).toBe('Bad Request');
  });

  it('401, 403, 404 (unknown route), 409', async () => {
    const t = await newTenant(ctx);
    expect(expectError(await api(ctx.app).get('/api/test/whoami'), 401)).toBe('Missing bearer token');
    const member = await newUser(ctx, t, 'Member');
    expect(expectError(await api(ctx.app, member.token).get('/api/test/contacts-reader'), 403)).toBe('Missing permission contacts:read');
    expect(expectError(await api(ctx.app).get('/api/nothing-here?x=1'), 404)).toBe('Route GET /api/nothing-here not found');
    expect(expectError(await api(ctx.app).delete('/nothing'), 404)).toBe('Route DELETE /nothing not found');
    const reg = { churchName: t.slug, username: 'dupe', email: 'dupe@example.org', password: 'long enough pw', firstName: 'D', lastName: 'Upe' };
    expect((await api(ctx.app).post('/api/register', reg)).statusCode).toBe(201);
    expectError(await api(ctx.app).post('/api/register', reg), 409);
  });

  it('413 for a body over 1 MB', async () => {
    const payload = JSON.stringify({ username: 'x'.repeat(1_100_000), password: 'x', churchName: 'x' });
    const res = await ctx.app.inject({ method: 'POST', url: '/api/auth/login', headers: json, payload });
    expect(expectError(res, 413)).toBe('Request body is too large');
  });

  it('415 for an unsupported content type', async () => {
    const res = await ctx.app.inject({ method: 'POST', url: '/api/auth/login', headers: { 'content-type': 'application/xml' }, payload: '<login/>' });
    expect(expectError(res, 415)).toBe('Unsupported content type');
    const form = await ctx.app.inject({ method: 'POST', url: '/api/auth/login', headers: { 'content-type': 'application/x-www-form-urlencoded' }, payload: 'a=b' });
    expectError(form, 415);
  });

  it('malformed JSON → 400', async () => {
    for (const payload of ['{', '{"a":}', '{"a":1}}', "{'a':1}", 'undefined', '\u0000']) {
      const res = await ctx.app.inject({ method: 'POST', url: '/api/auth/login', headers: json, payload });
      expect(res.statusCode, payload).toBe(400);
      expectError(res, 400);
    }
    const res = await ctx.app.inject({ method: 'POST', url: '/api/auth/login', headers: json, payload: '{"a":' });
    expect(expectError(res, 400)).toBe('Body is not valid JSON');
  });

  it('NUL in a string or a key → 400', async () => {
    const t = await newTenant(ctx);
    const writer = await newUser(ctx, t, ['contacts:write']);
    for (const payload of ['{"name":"a\\u0000b"}', '{"na\\u0000me":"x"}', '{"name":"x","deep":{"list":["ok","\\u0000"]}}']) {
      const res = await ctx.app.inject({ method: 'POST', url: '/api/test/echo', headers: { ...json, authorization: `Bearer ${writer.token}` }, payload });
      expect(expectError(res, 400), payload).toBe('Strings must not contain NUL characters');
    }
  });

  it('strings are trimmed; __proto__ and constructor keys are harmless', async () => {
    const t = await newTenant(ctx);
    const writer = await newUser(ctx, t, ['contacts:write']);
    const headers = { ...json, authorization: `Bearer ${writer.token}` };
    const res = await ctx.app.inject({ method: 'POST', url: '/api/test/echo', headers, payload: '{"name":"  Ann  ","__proto__":{"polluted":true},"constructor":{"prototype":{"polluted":true}}}' });
    expect(res.statusCode).toBe(200);
    expect(res.json()).toEqual({ name: 'Ann' });
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
    expect(Object.prototype).not.toHaveProperty('polluted');
    // A body that is only __proto__ is an empty object: the required field is missing.
    const only = await ctx.app.inject({ method: 'POST', url: '/api/test/echo', headers, payload: '{"__proto__":{"name":"x"}}' });
    expect(expectError(only, 400)).toBe('body/name is required');
  });

  it('wrong JSON types in a body are 400, not coerced', async () => {
    const t = await newTenant(ctx);
    const writer = await newUser(ctx, t, ['contacts:write']);
    for (const name of [42, true, ['x'], { a: 1 }, null]) {
      const res = await api(ctx.app, writer.token).post('/api/test/echo', { name } as never);
      expect(expectError(res, 400), JSON.stringify(name)).toBe('body/name must be string');
    }
  });

  it('query strings are still coerced from text', async () => {
    const res = await api(ctx.app).get('/api/tenants?page=1&limit=5');
    expect(res.json()).toMatchObject({ page: 1, limit: 5 });
    expect(expectError(await api(ctx.app).get('/api/tenants?limit=1.5'), 400)).toMatch(/^querystring\/limit must be .*integer/);
    expectError(await api(ctx.app).get('/api/tenants?limit=-1'), 400);
    expectError(await api(ctx.app).get('/api/tenants?page=99999999999999999999'), 400);
    expectError(await api(ctx.app).get('/api/tenants?limit=1&limit=2'), 400);
    expectError(await api(ctx.app).get('/api/tenants?limit=abc'), 400);
    expectError(await api(ctx.app).get('/api/tenants?limit=%00'), 400);
    expect(expectError(await api(ctx.app).get('/api/tenants?unknown=1&page=1'), 400)).toBe('querystring/unknown is not a parameter of GET /api/tenants');
    expect((await api(ctx.app).get('/api/tenants?page=1')).statusCode).toBe(200);
  });

  it('a thrown non-AppError is a bare 500', async () => {
    const app = await buildApp({ config: testConfig(), db: ctx.db, logger: false });
    app.get('/api/test/boom', { config: { public: true } }, async () => {
      throw new Error('secret internals at 10.0.0.1');
    });
    const res = await app.inject({ method: 'GET', url: '/api/test/boom' });
    expect(res.json()).toEqual({ statusCode: 500, message: 'Internal Server Error', error: 'Internal Server Error' });
    await app.close();
  });

  it('security headers are set (helmet); CORS is off unless configured', async () => {
    const res = await ctx.app.inject({ method: 'GET', url: '/api/health', headers: { origin: 'https://evil.example' } });
    expect(res.headers['x-content-type-options']).toBe('nosniff');
    expect(res.headers['access-control-allow-origin']).toBeUndefined();
  });

  it('CORS allows only the configured origins', async () => {
    const app = await buildApp({ config: testConfig({ corsOrigins: ['https://app.example'] }), db: ctx.db, logger: false });
    const ok = await app.inject({ method: 'GET', url: '/api/health', headers: { origin: 'https://app.example' } });
    expect(ok.headers['access-control-allow-origin']).toBe('https://app.example');
    const bad = await app.inject({ method: 'GET', url: '/api/health', headers: { origin: 'https://evil.example' } });
    expect(bad.headers['access-control-allow-origin']).toBeUndefined();
    await app.close();
  });

  it('frameworkErrors (malformed URL, over-long parameter) answers in the one error shape', async () => {
    const app = Fastify({ frameworkErrors });
    app.get('/x/:id', async () => 'ok');
    const bad = await app.inject({ method: 'GET', url: '/x/%E0%A4%A' });
    expect(bad.json()).toEqual({ statusCode: 400, message: 'The URL is not valid', error: 'Bad Request' });
    const long = await app.inject({ method: 'GET', url: `/x/${'a'.repeat(200)}` });
    expect(long.json()).toEqual({ statusCode: 414, message: 'A URL parameter is too long', error: 'URI Too Long' });
    await app.close();
  });
});

describe('API docs', () => {
  it('are served outside production, without a token', async () => {
    const ui = await ctx.app.inject({ method: 'GET', url: '/api/docs' });
    expect(ui.statusCode).toBe(200);
    expect(ui.headers['content-type']).toMatch(/^text\/html/);
    expect(ui.body).toContain('swagger');
    const doc = await ctx.app.inject({ method: 'GET', url: '/api/docs/json' });
    expect(doc.statusCode).toBe(200);
    const body = doc.json();
    expect(body.openapi).toMatch(/^3\./);
    expect(Object.keys(body.paths)).toContain('/api/auth/login');
    expect(body.paths['/api/auth/login'].post.security).toEqual([]);
  });

  it('are 404 in production', async () => {
    const app = await buildApp({ config: testConfig({ nodeEnv: 'production' }), db: ctx.db, logger: false });
    for (const url of ['/api/docs', '/api/docs/', '/api/docs/json', '/api/docs/static/index.html']) {
      const res = await app.inject({ method: 'GET', url });
      expect(expectError(res, 404), url).toMatch(/not found/);
    }
    await app.close();
  });
});
