import { sql } from 'drizzle-orm';
import { beforeAll, describe, expect, it } from 'vitest';
import { ALL_PERMISSIONS, type Permission } from '../../src/lib/permissions.js';
import { setupTestApp } from '../helpers/app.js';
import { newUser } from '../helpers/factories.js';
import { fixtureTenant, type FixtureTenant, type GroupKind, type Kind } from './fixtures.js';
import { requestOf, ROUTES } from './route-table.js';

/**
 * The role × route matrix (issue 19), generated from the route table and the permission catalog:
 * every route × {no token, every permission but its own, another tenant's ids, an invisible group's
 * records, a visible group the caller does not lead}.
 */
const ctx = setupTestApp();
let a: FixtureTenant;
let b: FixtureTenant;
const GROUP_KINDS = new Set<Kind>(['group', 'event', 'membership', 'membershipRequest', 'registration', 'attendance', 'activity', 'service', 'session'] satisfies GroupKind[]);

interface Route { key: string; method: string; url: string; permission?: Permission; isPublic: boolean }
const routes = (): Route[] =>
  ctx.app.registeredRoutes.flatMap((r) =>
    (Array.isArray(r.method) ? r.method : [r.method])
      .filter((m) => m !== 'HEAD' && r.url.startsWith('/api') && !r.url.startsWith('/api/docs'))
      .map((m) => ({ key: `${m} ${r.url}`, method: m, url: r.url, permission: r.config?.permission, isPublic: !!r.config?.public })),
  );

/** Every error is the contract's shape; the status compared by the caller. */
function cell(res: { statusCode: number; body: string }, key: string) {
  const body = res.statusCode === 204 ? {} : JSON.parse(res.body || '{}');
  if (res.statusCode >= 400) {
    expect(Object.keys(body).sort(), `${key}: error shape ${res.body}`).toEqual(['error', 'message', 'statusCode']);
  }
  return `${key} → ${res.statusCode}${res.statusCode >= 400 ? ` ${body.message}` : ''}`;
}

let cells = 0;
async function send(token: string | undefined, key: string, fixtures: FixtureTenant['ids']) {
  const { method, url, payload, used } = requestOf(key, ROUTES[key], fixtures);
  const res = await ctx.app.inject({ method, url, payload: payload as never, headers: token ? { authorization: `Bearer ${token}` } : {} });
  cells++;
  return { res, used, seen: cell(res, `${method} ${url}`) };
}

async function changeCount(t: FixtureTenant): Promise<number> {
  const res = await ctx.db.execute(sql`select count(*) as n from changes where tenant_id = ${t.tenant.id}`);
  return Number((res as unknown as { rows: { n: string }[] }).rows[0].n);
}

beforeAll(async () => {
  a = await fixtureTenant(ctx);
  b = await fixtureTenant(ctx);
});

describe('role × route matrix', () => {
  it('every route has an entry in the route table, and every entry a route', () => {
    const keys = routes().map((r) => r.key);
    expect(keys.filter((k) => !ROUTES[k]), 'routes without an entry in test/safety/route-table.ts').toEqual([]);
    expect(Object.keys(ROUTES).filter((k) => !keys.includes(k)), 'entries without a route').toEqual([]);
  });

  it('no token → 401 on every non-public route', async () => {
    const wrong: string[] = [];
    for (const r of routes().filter((x) => !x.isPublic)) {
      const { res, seen } = await send(undefined, r.key, a.ids);
      if (res.statusCode !== 401) wrong.push(seen);
    }
    expect(wrong).toEqual([]);
  });

  it('every permission but the one the route needs → 403', async () => {
    const users = new Map<Permission, string>();
    for (const p of ALL_PERMISSIONS) users.set(p, (await newUser(ctx, a.tenant, ALL_PERMISSIONS.filter((x) => x !== p))).token);
    const wrong: string[] = [];
    const permissioned = routes().filter((r) => r.permission);
    expect(permissioned.length).toBeGreaterThan(150);
    for (const r of permissioned) {
      const { res, seen } = await send(users.get(r.permission!), r.key, a.ids);
      if (res.statusCode !== 403) wrong.push(seen);
    }
    expect(wrong).toEqual([]);
  });

  it("another tenant's ids (path or body) → 404, nothing of the other tenant touched", async () => {
    const wrong: string[] = [];
    let checked = 0;
    const changesOfB = await changeCount(b);
    for (const r of routes().filter((x) => !x.isPublic)) {
      const probe = requestOf(r.key, ROUTES[r.key], b.ids);
      if (probe.used.size === 0) continue;
      const { res, seen } = await send(a.tenant.admin.token, r.key, b.ids);
      checked++;
      if (res.statusCode !== (ROUTES[r.key].foreignIds ?? 404)) wrong.push(seen);
    }
    expect(checked).toBeGreaterThan(90);
    expect(wrong).toEqual([]);
    expect(await changeCount(b)).toBe(changesOfB);
  });

  it("an invisible group's records → 404; a visible group not led → 403 on writes, 200 on reads", async () => {
    const wrong: string[] = [];
    let checked = 0;
    for (const r of routes().filter((x) => !x.isPublic)) {
      const entry = ROUTES[r.key];
      const probe = requestOf(r.key, entry, a.invisible);
      if (entry.noVisibility || ![...probe.used].some((k) => GROUP_KINDS.has(k))) continue;
      const hidden = await send(a.leader.token, r.key, a.invisible);
      if (hidden.res.statusCode !== 404) wrong.push(`invisible: ${hidden.seen}`);
      const expected = entry.visibleNotLed ?? (r.method === 'GET' ? 200 : 403);
      const visible = await send(a.leader.token, r.key, a.visibleNotLed);
      if (visible.res.statusCode !== expected) wrong.push(`visible not led (want ${expected}): ${visible.seen}`);
      checked++;
    }
    expect(checked).toBeGreaterThan(30);
    expect(wrong).toEqual([]);
    console.log(`role × route matrix: ${cells} cells checked`);
  });
});
