import fs from 'node:fs';
import { beforeAll, describe, expect, it } from 'vitest';
import { api, expectError, setupTestApp } from '../helpers/app.js';
import { newTenant, type TestTenant } from '../helpers/factories.js';

/**
 * Issue 31: a query parameter an operation does not declare is 400 naming it, on every operation of
 * the OpenAPI document (test/docs/openapi.test.ts keeps openapi.json what the code produces), so a
 * wrong guess is an error, not a wrong answer.
 */
const ctx = setupTestApp();

interface Operation {
  parameters?: { name: string; in: string }[];
}
const doc = JSON.parse(fs.readFileSync(new URL('../../openapi.json', import.meta.url), 'utf8')) as { paths: Record<string, Record<string, Operation>> };
const OPERATIONS = Object.entries(doc.paths).flatMap(([path, ops]) =>
  Object.entries(ops).map(([method, op]) => ({ method: method.toUpperCase() as 'GET', path, query: (op.parameters ?? []).filter((p) => p.in === 'query').map((p) => p.name) })),
);
const UNDECLARED = 'notAParameter';

let t: TestTenant;
let reportKey: string;
beforeAll(async () => {
  t = await newTenant(ctx);
  reportKey = (await api(ctx.app, t.admin.token).get('/api/reports')).json().data[0].key;
});

/** A concrete URL for an operation: a real report key for /api/reports/{key}, 1 for every other path parameter. */
const urlOf = (path: string) => path.replace(/\{(\w+)\}/g, (_, name: string) => (path === '/api/reports/{key}' ? reportKey : name === 'token' ? 'some-token' : '1'));

/** The route as the server names it: `/api/crm/contacts/:id`. */
const routeOf = (path: string) => path.replace(/\{(\w+)\}/g, ':$1');

describe('an undeclared query parameter', () => {
  it('covers the whole document', () => {
    expect(OPERATIONS.length).toBeGreaterThan(150);
    expect(OPERATIONS.filter((op) => op.query.length === 0).length).toBeGreaterThan(50);
  });

  it.each(OPERATIONS)('$method $path → 400 naming it', async ({ method, path }) => {
    const res = await ctx.app.inject({ method, url: `${urlOf(path)}?${UNDECLARED}=1`, headers: { authorization: `Bearer ${t.admin.token}` } });
    const message = expectError(res, 400);
    // The reports check their own parameters, per report, in the same words.
    const operation = path === '/api/reports/{key}' ? `report ${reportKey}` : `${method} ${routeOf(path)}`;
    expect(message).toBe(`querystring/${UNDECLARED} is not a parameter of ${operation}`);
  });

  it('GET /api/attendance/sessions?date=… is refused, not answered with every session', async () => {
    expect(expectError(await api(ctx.app, t.admin.token).get('/api/attendance/sessions?date=2026-11-29'), 400))
      .toBe('querystring/date is not a parameter of GET /api/attendance/sessions');
    expect(expectError(await api(ctx.app, t.admin.token).get('/api/attendance/sessions?groupId=1&date=2026-11-29&from=2026-11-01'), 400))
      .toBe('querystring/date is not a parameter of GET /api/attendance/sessions');
  });

  it('comes after authentication (401 without a token) and also on HEAD', async () => {
    expectError(await api(ctx.app).get('/api/attendance/sessions?date=2026-11-29'), 401);
    const head = await ctx.app.inject({ method: 'HEAD', url: '/api/crm/contacts?date=2026-11-29', headers: { authorization: `Bearer ${t.admin.token}` } });
    expect(head.statusCode).toBe(400);
  });

  it('leaves the docs UI alone', async () => {
    expect((await api(ctx.app).get('/api/docs/json?cache=1')).statusCode).toBe(200);
  });
});

describe('the declared query parameters', () => {
  const withQuery = OPERATIONS.filter((op) => op.query.length > 0);

  it.each(withQuery)('$method $path takes every one it declares', async ({ method, path, query }) => {
    const search = query.map((name) => `${name}=1`).join('&');
    const res = await ctx.app.inject({ method, url: `${urlOf(path)}?${search}`, headers: { authorization: `Bearer ${t.admin.token}` } });
    // The values may well be wrong for the parameter (400 naming the rule); the names never are.
    expect(res.body).not.toMatch(/is not a parameter of/);
  });

  it('as before: an empty query string and a list with its declared filters answer 200', async () => {
    expect((await api(ctx.app, t.admin.token).get('/api/attendance/sessions?')).statusCode).toBe(200);
    expect((await api(ctx.app, t.admin.token).get('/api/crm/contacts?page=1&limit=5&q=ab')).statusCode).toBe(200);
  });
});
