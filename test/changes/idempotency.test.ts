import { sql } from 'drizzle-orm';
import type { FastifyInstance } from 'fastify';
import { beforeAll, describe, expect, it } from 'vitest';
import { api, expectError, setupTestApp } from '../helpers/app.js';
import { newTenant, newUser, type TestTenant, type TestUser } from '../helpers/factories.js';
import { categoryId } from '../helpers/groups.factories.js';
import { isIdempotentRoute } from '../../src/plugins/idempotency.js';
import { lastChangeId, rows } from './helpers.js';

/** modules-contract §0: Idempotency-Key on every create POST. */
/** A test route that creates nothing and waits until released: a request held "in flight". */
let release: () => void = () => {};
let entered: () => void = () => {};
let calls = 0;
function slowRoute(app: FastifyInstance) {
  app.post('/api/test/slow', {
    config: { authenticated: true },
    schema: { response: { 201: { type: 'object', properties: { call: { type: 'integer' } } } } },
  }, async (_request, reply) => {
    calls++;
    entered();
    await new Promise<void>((resolve) => (release = resolve));
    return reply.status(201).send({ call: calls });
  });
}

describe('Idempotency-Key', () => {
  const ctx = setupTestApp({}, slowRoute);
  let t: TestTenant;
  let other: TestUser;
  beforeAll(async () => {
    t = await newTenant(ctx);
    other = await newUser(ctx, t, ['contacts:read', 'contacts:write']);
  });
  const person = (lastName: string) => ({ category: 'Person', person: { firstName: 'Idem', lastName } });
  const post = (token: string, url: string, body: unknown, key?: string) =>
    api(ctx.app, token).post(url, body as Record<string, unknown>, key === undefined ? {} : { 'idempotency-key': key });
  const contactCount = async (lastName: string) =>
    Number((await rows<{ n: string }>(ctx, sql`select count(*) as n from persons where tenant_id = ${t.id} and last_name = ${lastName}`))[0].n);

  it('applies to every POST that documents 201 or 202, and to nothing else', () => {
    const routes = ctx.app.registeredRoutes;
    const covered = routes.filter((r) => isIdempotentRoute(r as never)).map((r) => r.url);
    expect(covered).toEqual(expect.arrayContaining(['/api/crm/contacts', '/api/groups', '/api/events', '/api/users', '/api/roles', '/api/groups/membership']));
    expect(covered).not.toContain('/api/crm/contacts/import');
    expect(covered).not.toContain('/api/auth/login');
  });

  it('the same key and body replays the first response (status, body, Idempotent-Replayed) without doing the work again', async () => {
    const first = await post(t.admin.token, '/api/crm/contacts', person('Replay'), 'key-1');
    expect(first.statusCode).toBe(201);
    expect(first.headers['idempotent-replayed']).toBeUndefined();
    const changes = await lastChangeId(ctx, t.id);
    const again = await post(t.admin.token, '/api/crm/contacts', person('Replay'), 'key-1');
    expect(again.statusCode).toBe(201);
    expect(again.headers['idempotent-replayed']).toBe('true');
    expect(again.headers['content-type']).toContain('application/json');
    expect(again.json()).toEqual(first.json());
    expect(await contactCount('Replay')).toBe(1);
    expect(await lastChangeId(ctx, t.id)).toBe(changes);
    // Without the header, every request does the work.
    await post(t.admin.token, '/api/crm/contacts', person('Replay'));
    expect(await contactCount('Replay')).toBe(2);
  });

  it('the same key with another body, or on another route, is 422', async () => {
    expect((await post(t.admin.token, '/api/crm/contacts', person('Mismatch'), 'key-2')).statusCode).toBe(201);
    const message = expectError(await post(t.admin.token, '/api/crm/contacts', person('Mismatch2'), 'key-2'), 422);
    expect(message).toBe('Idempotency-Key reused with a different request');
    const catId = await categoryId(ctx, t, 'Fellowship');
    expectError(await post(t.admin.token, '/api/groups', { name: 'Idem group', categoryId: catId }, 'key-2'), 422);
    expect(await contactCount('Mismatch2')).toBe(0);
    // A different key on the other route works.
    expect((await post(t.admin.token, '/api/groups', { name: 'Idem group', categoryId: catId }, 'key-2b')).statusCode).toBe(201);
  });

  it('keys are per user: the same key by two users makes two creations', async () => {
    expect((await post(t.admin.token, '/api/crm/contacts', person('PerUser'), 'shared-key')).statusCode).toBe(201);
    const second = await post(other.token, '/api/crm/contacts', person('PerUser'), 'shared-key');
    expect(second.statusCode).toBe(201);
    expect(second.headers['idempotent-replayed']).toBeUndefined();
    expect(await contactCount('PerUser')).toBe(2);
  });

  it('a repeat while the first is still running is 409, and then the first response is replayed', async () => {
    const inHandler = new Promise<void>((resolve) => (entered = resolve));
    const first = post(t.admin.token, '/api/test/slow', { n: 1 }, 'key-3');
    await inHandler;
    const second = await post(t.admin.token, '/api/test/slow', { n: 1 }, 'key-3');
    expect(expectError(second, 409)).toBe('A request with this Idempotency-Key is still in progress');
    release();
    const done = await first;
    expect(done.statusCode).toBe(201);
    expect(done.json()).toEqual({ call: 1 });
    const later = await post(t.admin.token, '/api/test/slow', { n: 1 }, 'key-3');
    expect(later.headers['idempotent-replayed']).toBe('true');
    expect(later.json()).toEqual({ call: 1 });
    expect(calls).toBe(1);
  });

  it('two concurrent creations with one key make one contact', async () => {
    const body = person('Concurrent');
    const [a, b] = await Promise.all([
      post(t.admin.token, '/api/crm/contacts', body, 'key-3b'),
      post(t.admin.token, '/api/crm/contacts', body, 'key-3b'),
    ]);
    const statuses = [a, b].map((r) => (r.headers['idempotent-replayed'] ? 'replayed' : r.statusCode)).sort();
    // Overlapping, the second is 409; if the first finished before the second began, the second is a replay.
    expect([['201', '409'], ['201', 'replayed']]).toContainEqual(statuses.map(String));
    expect(await contactCount('Concurrent')).toBe(1);
  });

  it('a claim abandoned in flight (a dead process) is taken over after 60 s; an expired key (24 h) is free again', async () => {
    await ctx.db.execute(sql`insert into idempotency_keys (tenant_id, user_id, key, request_hash, created_at)
      values (${t.id}, ${t.admin.id}, 'abandoned', 'whatever', now() - interval '61 seconds')`);
    const taken = await post(t.admin.token, '/api/crm/contacts', person('Abandoned'), 'abandoned');
    expect(taken.statusCode).toBe(201);
    expect(taken.headers['idempotent-replayed']).toBeUndefined();

    await ctx.db.execute(sql`insert into idempotency_keys (tenant_id, user_id, key, request_hash, created_at)
      values (${t.id}, ${t.admin.id}, 'fresh-in-flight', 'whatever', now() - interval '5 seconds')`);
    expectError(await post(t.admin.token, '/api/crm/contacts', person('Fresh'), 'fresh-in-flight'), 422);

    expect((await post(t.admin.token, '/api/crm/contacts', person('Expiring'), 'key-4')).statusCode).toBe(201);
    await ctx.db.execute(sql`update idempotency_keys set created_at = now() - interval '25 hours' where tenant_id = ${t.id} and key = 'key-4'`);
    const reused = await post(t.admin.token, '/api/crm/contacts', person('Expiring'), 'key-4');
    expect(reused.statusCode).toBe(201);
    expect(reused.headers['idempotent-replayed']).toBeUndefined();
    expect(await contactCount('Expiring')).toBe(2);
  });

  it('an error response is replayed; a validation error is not stored (the key stays free)', async () => {
    const bad = await post(t.admin.token, '/api/crm/contacts', { category: 'Nope' }, 'key-5');
    expectError(bad, 400);
    expect((await rows(ctx, sql`select 1 from idempotency_keys where tenant_id = ${t.id} and key = 'key-5'`)).length).toBe(0);
    const missing = await post(t.admin.token, '/api/crm/requests', { contactId: 999999999, type: 'Prayer', description: 'x' }, 'key-6');
    expectError(missing, 404);
    const replay = await post(t.admin.token, '/api/crm/requests', { contactId: 999999999, type: 'Prayer', description: 'x' }, 'key-6');
    expectError(replay, 404);
    expect(replay.headers['idempotent-replayed']).toBe('true');
  });

  it('a malformed key is 400 and nothing is created', async () => {
    for (const key of ['', 'x'.repeat(256), 'caf\u00e9', 'tab\there']) {
      const res = await ctx.app.inject({ method: 'POST', url: '/api/crm/contacts', payload: person('BadKey'), headers: { authorization: `Bearer ${t.admin.token}`, 'idempotency-key': key } });
      expectError(res, 400);
    }
    expect((await post(t.admin.token, '/api/crm/contacts', person('BadKey'), 'x'.repeat(255))).statusCode).toBe(201);
    expect(await contactCount('BadKey')).toBe(1);
  });
});
