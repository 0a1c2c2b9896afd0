import { sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ChangeEvent } from '../../src/changes/subscribers.js';
import { openDb, type AppDb } from '../../src/db/client.js';
import { withDatabase } from '../../src/db/admin.js';
import { createFailureThrottle } from '../../src/modules/auth/auth.throttle.js';
import { api, buildTestApp, expectError, setupTestApp, type TestContext } from '../helpers/app.js';
import { newTenant, PASSWORD } from '../helpers/factories.js';

const ctx = setupTestApp();

describe('login throttling counts in the database', () => {
  it('allows up to max failures, then asks to wait until the max-th most recent leaves the window; keys and kinds apart; reset forgets', async () => {
    const clock = { now: Date.UTC(2026, 0, 1) };
    const login = createFailureThrottle(ctx.db, 'login', 3, 60_000, () => clock.now);
    const reset = createFailureThrottle(ctx.db, 'reset', 3, 60_000, () => clock.now);
    const key = `t-${Math.random()}\u0000ada`;
    await login.fail(key);
    clock.now += 10_000;
    await login.fail(key);
    await login.fail(key);
    expect(await login.retryAfter(key)).toBe(50);
    expect(await login.retryAfter(`${key}x`)).toBe(0);
    expect(await reset.retryAfter(key)).toBe(0);
    clock.now += 50_001;
    expect(await login.retryAfter(key)).toBe(0);
    await login.fail(key);
    expect(await login.retryAfter(key)).toBeGreaterThan(0);
    await login.reset(key);
    expect(await login.retryAfter(key)).toBe(0);
  });
});

/**
 * Two app instances on one PostgreSQL database, each with its own connection pool (as two server
 * processes behind a load balancer). PostgreSQL only: PGlite is one process by design (it locks its
 * data directory), so there is no second instance to start.
 */
describe.skipIf(!process.env.DATABASE_URL)('two instances, one PostgreSQL', () => {
  let second: TestContext;
  let secondDb: AppDb;
  beforeAll(async () => {
    const result = await ctx.db.execute(sql`select current_database() as name`);
    const name = (result as unknown as { rows: { name: string }[] }).rows[0].name;
    secondDb = await openDb({ dataDir: '', databaseUrl: withDatabase(process.env.DATABASE_URL!, name), poolSize: 5 });
    second = await buildTestApp(secondDb);
  });
  afterAll(async () => {
    await second?.app.close();
    await secondDb?.close();
  });

  it('failed logins count across both: the 11th attempt is refused by either', async () => {
    const t = await newTenant(ctx);
    const attempt = (i: number) => api(i % 2 ? second.app : ctx.app).post('/api/auth/login', { churchName: t.slug, username: 'admin', password: 'wrong password' });
    for (let i = 0; i < ctx.config.authRateLimit.accountFailures; i++) expectError(await attempt(i), 401);
    expectError(await attempt(0), 429);
    expectError(await attempt(1), 429);
    // The right password is refused too while throttled, by both.
    expectError(await api(second.app).post('/api/auth/login', { churchName: t.slug, username: 'admin', password: PASSWORD }), 429);
  });

  it('an Idempotency-Key holds across both: sent to each at once and again, one contact is created', async () => {
    const t = await newTenant(ctx);
    const body = { category: 'Person', person: { firstName: 'Once', lastName: 'Only' } };
    const headers = { 'idempotency-key': `key-${t.id}` };
    const [one, two] = await Promise.all([
      api(ctx.app, t.admin.token).post('/api/crm/contacts', body, headers),
      api(second.app, t.admin.token).post('/api/crm/contacts', body, headers),
    ]);
    const statuses = [one.statusCode, two.statusCode].sort();
    // The loser either waits for the replay or is told the first is still in progress.
    expect([[201, 201], [201, 409]]).toContainEqual(statuses);
    const created = [one, two].find((r) => r.statusCode === 201)!.json();
    const again = await api(second.app, t.admin.token).post('/api/crm/contacts', body, headers);
    expect(again.statusCode).toBe(201);
    expect(again.json().id).toBe(created.id);
    const again1 = await api(ctx.app, t.admin.token).post('/api/crm/contacts', body, headers);
    expect(again1.json().id).toBe(created.id);
    const list = (await api(ctx.app, t.admin.token).get('/api/crm/contacts?q=Only')).json();
    expect(list.total).toBe(1);
  });

  it("each change is handed to a subscriber by one instance's worker only, draining at once", async () => {
    const tenants = await Promise.all([newTenant(ctx), newTenant(ctx), newTenant(ctx), newTenant(ctx)]);
    const seen: { by: string; id: number }[] = [];
    const probe = (by: string) => ({ name: 'safety_probe', handle: async (_tx: unknown, change: ChangeEvent) => void seen.push({ by, id: change.id }) });
    ctx.app.worker.subscribe(probe('first') as never);
    second.app.worker.subscribe(probe('second') as never);
    await Promise.all([ctx.app.worker.drain(), second.app.worker.drain()]); // the backlog of earlier tests
    seen.length = 0;
    await Promise.all(Array.from({ length: 40 }, (_, i) =>
      api(i % 2 ? second.app : ctx.app, tenants[i % 4].admin.token).post('/api/crm/contacts', { category: 'Person', person: { firstName: 'Feed', lastName: `N${i}` } })));
    await Promise.all([ctx.app.worker.drain(), second.app.worker.drain(), ctx.app.worker.drain(), second.app.worker.drain()]);
    await Promise.all([ctx.app.worker.drain(), second.app.worker.drain()]);
    const ids = seen.map((s) => s.id);
    expect(ids.length).toBeGreaterThanOrEqual(40);
    expect(new Set(ids).size).toBe(ids.length);
    console.log(`two instances: ${ids.length} changes, ${seen.filter((s) => s.by === 'second').length} taken by the second`);
  });
});
