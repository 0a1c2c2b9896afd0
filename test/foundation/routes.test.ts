import { describe, expect, it } from 'vitest';
import { ACCESS_TOKEN_TTL_SECONDS } from '../../src/plugins/auth.js';
import { api, buildTestApp, expectError, setupTestApp } from '../helpers/app.js';
import { newTenant } from '../helpers/factories.js';

const ctx = setupTestApp();

/** api-contract §4: the public routes, by method and URL. Everything else needs a token. */
const PUBLIC_ROUTES = new Set([
  'POST /api/auth/login', 'POST /api/auth/refresh', 'POST /api/auth/logout', 'POST /api/auth/forgot-password',
  'PUT /api/auth/reset-password/:token', 'POST /api/register', 'GET /api/tenants', 'GET /api/health',
]);

const methods = (m: string | string[]) => (Array.isArray(m) ? m : [m]);

describe('route walk', () => {
  it('sees the routes (the inventory itself works)', () => {
    const urls = ctx.app.registeredRoutes.map((r) => r.url);
    expect(urls).toContain('/api/auth/login');
    expect(urls).toContain('/api/health');
    expect(urls.length).toBeGreaterThan(10);
    expect(ACCESS_TOKEN_TTL_SECONDS).toBe(900);
  });

  it('every route declares public, authenticated or a permission; public is exactly the contract list', () => {
    const undeclared: string[] = [];
    const unexpectedPublic: string[] = [];
    for (const route of ctx.app.registeredRoutes) {
      for (const method of methods(route.method)) {
        if (method === 'HEAD') continue;
        const key = `${method} ${route.url}`;
        const c = route.config ?? {};
        if (!c.public && !c.authenticated && !c.permission) undeclared.push(key);
        // Outside /api: the console's files (src/plugins/console.ts), public by design.
        if (c.public && !PUBLIC_ROUTES.has(key) && route.url.startsWith('/api')) unexpectedPublic.push(key);
      }
    }
    expect(undeclared, 'routes without public/authenticated/permission').toEqual([]);
    expect(unexpectedPublic, 'public routes the contract does not list').toEqual([]);
  });

  it('every /api route documents a 2xx response schema and tags', () => {
    const missing: string[] = [];
    for (const route of ctx.app.registeredRoutes) {
      for (const method of methods(route.method)) {
        if (method === 'HEAD' || !route.url.startsWith('/api') || route.url.startsWith('/api/docs')) continue;
        const response = route.schema?.response ?? {};
        const has2xx = Object.keys(response).some((code) => /^2\d\d$/.test(code));
        const tags = (route.schema as { tags?: string[] } | undefined)?.tags;
        if (!has2xx || !tags?.length) missing.push(`${method} ${route.url}`);
      }
    }
    expect(missing, 'routes without a 2xx response schema or tags').toEqual([]);
  });

  it('permissioned and authenticated routes answer 401 without a token (never 400/404/500)', async () => {
    const failures: string[] = [];
    for (const route of ctx.app.registeredRoutes) {
      if (route.config?.public || !route.url.startsWith('/api')) continue;
      for (const method of methods(route.method)) {
        if (method === 'HEAD') continue;
        const url = route.url.replace(/:[A-Za-z]+/g, 'abc');
        const res = await ctx.app.inject({ method: method as 'GET', url, payload: method === 'GET' || method === 'DELETE' ? undefined : { x: 1 } });
        if (res.statusCode !== 401) failures.push(`${method} ${url} → ${res.statusCode}`);
      }
    }
    expect(failures).toEqual([]);
  });
});

describe('GET /api/tenants and /api/health', () => {
  it('lists tenants with only slug and name, paginated', async () => {
    const t = await newTenant(ctx);
    const res = await api(ctx.app).get('/api/tenants?limit=500');
    expect(res.statusCode).toBe(200);
    const body = res.json();
    expect(Object.keys(body).sort()).toEqual(['data', 'limit', 'page', 'total']);
    expect(body.limit).toBe(100);
    for (const item of body.data) expect(Object.keys(item).sort()).toEqual(['name', 'slug']);
    expect(body.data).toContainEqual({ slug: t.slug, name: `Church ${t.slug}` });
    expect(body.total).toBe(body.data.length);
    const page2 = (await api(ctx.app).get(`/api/tenants?limit=1&page=${body.total + 1}`)).json();
    expect(page2).toEqual({ data: [], total: body.total, page: body.total + 1, limit: 1 });
    expectError(await api(ctx.app).get('/api/tenants?limit=0'), 400);
    expectError(await api(ctx.app).get('/api/tenants?page=abc'), 400);
  });

  it('health', async () => {
    const res = await api(ctx.app).get('/api/health');
    expect(res.statusCode).toBe(200);
    expect(res.json()).toEqual({ status: 'ok' });
  });

  it('health is 503 in the error shape when the database is gone', async () => {
    const { createTestDb } = await import('../helpers/db.js');
    const appDb = await createTestDb();
    const other = await buildTestApp(appDb);
    await appDb.close();
    const res = await api(other.app).get('/api/health');
    expect(expectError(res, 503)).toBe('Database unavailable');
    await other.app.close();
  });
});
