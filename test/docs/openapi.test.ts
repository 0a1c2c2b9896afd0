import AjvCompiler from '@fastify/ajv-compiler';
import type { FastifyInstance } from 'fastify';
import fs from 'node:fs';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createParishClient } from '../../client/index.js';
import { API_DOCS } from '../../src/modules/index.js';
import type { RegisteredRoute } from '../../src/plugins/auth.js';
import { docKey, isApiRoute } from '../../src/plugins/docs.js';
import { buildDocumentedApp, clientTypesHeader, openApiText } from '../../src/plugins/openapi-document.js';
import { expectError, setupTestApp } from '../helpers/app.js';
import { newTenant, PASSWORD, type TestTenant } from '../helpers/factories.js';

/**
 * Issue 18, in one file so the app's modules are imported once: the committed openapi.json is what the
 * code produces and documents every operation (the app built as `npm run openapi` builds it, without a
 * database); the typed client against a listening app; 415 for bodies in a content type a route does not take.
 */
let app: FastifyInstance;
let text: string;
let doc: { paths: Record<string, Record<string, Operation>> };

interface Operation {
  summary?: string;
  description?: string;
  requestBody?: { content: Record<string, { example?: unknown }> };
  responses: Record<string, unknown>;
}

beforeAll(async () => {
  app = await buildDocumentedApp();
  text = openApiText(app);
  doc = JSON.parse(text);
});
afterAll(() => app?.close());

const operations = () => Object.entries(doc.paths).flatMap(([path, ops]) => Object.entries(ops).map(([method, op]) => ({ key: `${method.toUpperCase()} ${path}`, op })));
const apiRoutes = () => (app.registeredRoutes as RegisteredRoute[]).filter((r) => typeof r.method === 'string' && isApiRoute(r.method, r.url));

describe('openapi.json', () => {
  it('is what the code produces (else run `npm run openapi` and commit openapi.json)', () => {
    const committed = fs.existsSync('openapi.json') ? fs.readFileSync('openapi.json', 'utf8') : '';
    expect(committed === text, 'openapi.json is out of date: run `npm run openapi` and commit it').toBe(true);
  });

  it('the typed client\'s types were generated from it (else run `npm run client`)', () => {
    const firstLine = fs.readFileSync('client/schema.d.ts', 'utf8').split('\n', 1)[0];
    expect(`${firstLine}\n`, 'client/schema.d.ts is stale: run `npm run client` and commit it').toBe(clientTypesHeader(text));
  });
});

describe('every operation is documented', () => {
  it('has a summary, a permission note and its 4xx responses; paths have no trailing slash', () => {
    const problems: string[] = [];
    for (const { key, op } of operations()) {
      if (!op.summary?.trim()) problems.push(`${key}: no summary (add it to its module's <module>.docs.ts)`);
      if (!op.description?.startsWith('**Permission:**')) problems.push(`${key}: no permission note`);
      // Only the health check takes no input and no token: it declares its 503 instead.
      if (key !== 'GET /api/health' && !Object.keys(op.responses).some((code) => /^4\d\d$/.test(code))) problems.push(`${key}: no 4xx response declared`);
      if (op.requestBody && !op.responses['415']) problems.push(`${key}: has a body but no 415`);
      if (key.endsWith('/')) problems.push(`${key}: trailing slash`);
    }
    expect(problems).toEqual([]);
    expect(operations().length).toBeGreaterThan(150);
  });

  it('non-public operations declare 401, permissioned ones 403 naming the permission', () => {
    const problems: string[] = [];
    for (const route of apiRoutes()) {
      const op = doc.paths[route.url.replace(/:(\w+)/g, '{$1}')]?.[(route.method as string).toLowerCase()];
      if (!op) continue;
      if (!route.config?.public && !op.responses['401']) problems.push(`${route.method} ${route.url}: no 401`);
      if (route.config?.permission && !op.description?.includes(`\`${route.config.permission}\``)) problems.push(`${route.method} ${route.url}: permission not stated`);
      if (route.config?.permission && !op.responses['403']) problems.push(`${route.method} ${route.url}: no 403`);
    }
    expect(problems).toEqual([]);
  });

  it('every request body has an example, and the example is valid for the route\'s own body schema', () => {
    const compile = AjvCompiler()({}, { customOptions: { removeAdditional: false, useDefaults: true, coerceTypes: false, allErrors: false } });
    const problems: string[] = [];
    for (const route of apiRoutes()) {
      const body = (route.schema as { body?: Record<string, unknown> & { content?: Record<string, { schema: Record<string, unknown> }> } } | undefined)?.body;
      if (!body) continue;
      const schema = body.content?.['application/json']?.schema ?? body;
      const examples = schema.examples as unknown[] | undefined;
      const key = docKey(route.method as string, route.url);
      if (!examples?.length) {
        problems.push(`${key}: no body example`);
        continue;
      }
      const validate = compile({ schema, method: route.method as string, url: route.url, httpPart: 'body' } as never) as ((data: unknown) => boolean) & { errors?: unknown };
      const example = structuredClone(examples[0]);
      if (!validate(example)) problems.push(`${key}: example invalid: ${JSON.stringify(validate.errors)}`);
    }
    expect(problems).toEqual([]);
  });

  it('every docs entry names a route that exists (no stale prose)', () => {
    const keys = new Set(apiRoutes().map((r) => docKey(r.method as string, r.url)));
    expect(Object.keys(API_DOCS).filter((key) => !keys.has(key))).toEqual([]);
  });
});

const ctx = setupTestApp();
let t: TestTenant;
beforeAll(async () => {
  t = await newTenant(ctx);
});

describe('typed client (client/) against a listening app', () => {
  it('logs in, lists contacts, creates one and reads typed errors', async () => {
    await ctx.app.listen({ port: 0, host: '127.0.0.1' });
    const { port } = ctx.app.server.address() as AddressInfo;
    const parish = createParishClient({ baseUrl: `http://127.0.0.1:${port}` });

    const login = await parish.POST('/api/auth/login', { body: { churchName: t.slug, username: 'admin', password: PASSWORD } });
    expect(login.response.status).toBe(200);
    parish.setToken(login.data!.accessToken);
    expect(login.data!.user.permissions).toContain('contacts:write');

    const before = await parish.GET('/api/crm/contacts', { params: { query: { limit: 100 } } });
    expect(before.response.status).toBe(200);
    const created = await parish.POST('/api/crm/contacts', {
      body: { category: 'Person', person: { firstName: 'Typed', lastName: 'Client' }, emails: [{ value: 'typed@example.org' }] },
    });
    expect(created.response.status).toBe(201);
    expect(created.data!.person?.lastName).toBe('Client');
    const after = await parish.GET('/api/crm/contacts', { params: { query: { q: 'Client' } } });
    expect(after.data!.total).toBe(1);
    expect(after.data!.data[0].id).toBe(created.data!.id);
    expect(after.data!.total).toBeLessThanOrEqual(before.data!.total + 1);

    const missing = await parish.GET('/api/crm/contacts/{id}', { params: { path: { id: 999_999_999 } } });
    expect(missing.response.status).toBe(404);
    expect(missing.error).toEqual({ statusCode: 404, message: expect.stringContaining('999999999'), error: 'Not Found' });
  });
});

describe('415: a body in a content type the route does not take', () => {
  const send = (url: string, contentType: string, payload: string, token?: string) =>
    ctx.app.inject({ method: 'POST', url, payload, headers: { 'content-type': contentType, ...(token ? { authorization: `Bearer ${token}` } : {}) } });

  it('text/plain, text/csv and forms to a JSON route are 415 in the error shape; authentication still comes first', async () => {
    const body = JSON.stringify({ category: 'Person', person: { firstName: 'A', lastName: 'B' } });
    expect(expectError(await send('/api/crm/contacts', 'text/plain', body, t.admin.token), 415)).toMatch(/content type/i);
    expect(expectError(await send('/api/crm/contacts', 'text/csv', 'firstName,lastName\nA,B\n', t.admin.token), 415)).toMatch(/application\/json/);
    expectError(await send('/api/crm/contacts', 'application/x-www-form-urlencoded', 'a=b', t.admin.token), 415);
    expectError(await send('/api/auth/login', 'text/plain', 'admin'), 415);
    expectError(await send('/api/crm/contacts', 'text/plain', body), 401);
    expectError(await send('/api/crm/contacts', 'application/json', '{"category":', t.admin.token), 400);
  });

  it('the CSV imports still take text/csv, and refuse text/plain', async () => {
    const res = await send('/api/crm/contacts/import', 'text/csv', 'firstName,lastName,email\nCsv,Person,csv@example.org\n', t.admin.token);
    expect(res.statusCode).toBe(200);
    expect(res.json()).toMatchObject({ total: 1, created: 1, failed: 0 });
    expect((await send('/api/groups/import', 'text/csv', 'name,category,parentName\n', t.admin.token)).statusCode).not.toBe(415);
    expectError(await send('/api/crm/contacts/import', 'text/plain', 'firstName,lastName\nA,B\n', t.admin.token), 415);
    expectError(await send('/api/finance/contributions/import', 'text/plain', 'date,amount,fund\n', t.admin.token), 415);
  });
});
