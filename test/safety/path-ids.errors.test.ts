import { beforeAll, describe, expect, it } from 'vitest';
import { setupTestApp } from '../helpers/app.js';
import { newTenant, type TestTenant } from '../helpers/factories.js';

/**
 * Path ids are positive decimal integers (issue 29): 0x10, 1e1, 0b11, +16, 16.0 and %2016 were all
 * read as 16. Generated over every route of the app with an integer path parameter, each form in
 * each such parameter (the others given a plain 1), as a tenant admin (every permission): 400.
 */
const ctx = setupTestApp();
let t: TestTenant;

const BAD = ['0x10', '1e1', '0b11', '+16', '16.0', '%2016', '16%20', 'Infinity'];

interface PathRoute { method: string; url: string; integers: string[]; others: string[] }

function pathRoutes(): PathRoute[] {
  return ctx.app.registeredRoutes.flatMap((r) => {
    const props = (r.schema as { params?: { properties?: Record<string, { type?: string }> } } | undefined)?.params?.properties ?? {};
    const names = [...r.url.matchAll(/:(\w+)/g)].map((m) => m[1]);
    const integers = names.filter((n) => props[n]?.type === 'integer');
    if (integers.length === 0) return [];
    return (Array.isArray(r.method) ? r.method : [r.method])
      .filter((m) => m !== 'HEAD')
      .map((method) => ({ method, url: r.url, integers, others: names.filter((n) => !integers.includes(n)) }));
  });
}

function urlOf(route: PathRoute, param: string, value: string): string {
  return route.url.replace(/:(\w+)/g, (_, name: string) => (name === param ? value : route.integers.includes(name) ? '1' : 'x'));
}

beforeAll(async () => {
  t = await newTenant(ctx);
});

describe('integer path parameters', () => {
  it('enumerates the routes with id parameters (the test covers what the app has)', () => {
    const routes = pathRoutes();
    expect(routes.length).toBeGreaterThan(80);
    for (const key of ['GET /api/crm/contacts/:id', 'PUT /api/finance/contributions/:id', 'DELETE /api/attendance/sessions/:id/records/:contactId']) {
      expect(routes.map((r) => `${r.method} ${r.url}`)).toContain(key);
    }
  });

  it('answers 400 in the error shape for every non-decimal form of an id, on every route', async () => {
    const wrong: string[] = [];
    let requests = 0;
    for (const route of pathRoutes()) {
      for (const param of route.integers) {
        for (const form of BAD) {
          const res = await ctx.app.inject({
            method: route.method as never, url: urlOf(route, param, form),
            headers: { authorization: `Bearer ${t.admin.token}`, 'content-type': 'application/json' },
            payload: ['POST', 'PUT', 'PATCH'].includes(route.method) ? '{}' : undefined,
          });
          requests++;
          const body = res.json();
          if (res.statusCode !== 400 || !String(body.message).includes(`params/${param}`) || Object.keys(body).sort().join() !== 'error,message,statusCode') {
            wrong.push(`${route.method} ${urlOf(route, param, form)} → ${res.statusCode} ${res.body.slice(0, 120)}`);
          }
        }
      }
    }
    expect(wrong).toEqual([]);
    expect(requests).toBeGreaterThan(80 * BAD.length);
  }, 240_000);

  it('still takes plain decimal ids (leading zeros included) and refuses zero and negatives', async () => {
    const headers = { authorization: `Bearer ${t.admin.token}` };
    const created = await ctx.app.inject({ method: 'POST', url: '/api/crm/contacts', headers, payload: { category: 'Person', person: { firstName: 'Id', lastName: 'Probe' } } });
    const id = created.json().id as number;
    for (const text of [String(id), `00${id}`]) {
      const res = await ctx.app.inject({ method: 'GET', url: `/api/crm/contacts/${text}`, headers });
      expect(res.statusCode, text).toBe(200);
      expect(res.json().id).toBe(id);
    }
    for (const text of ['0', '-1', '9007199254740992']) {
      expect((await ctx.app.inject({ method: 'GET', url: `/api/crm/contacts/${text}`, headers })).statusCode, text).toBe(400);
    }
    // Query integers follow the same rule.
    expect((await ctx.app.inject({ method: 'GET', url: `/api/finance/contributions?contactId=0x10`, headers })).statusCode).toBe(400);
    expect((await ctx.app.inject({ method: 'GET', url: `/api/finance/contributions?contactId=${id}`, headers })).statusCode).toBe(200);
  });
});
