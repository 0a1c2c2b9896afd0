import { and, eq, sql } from 'drizzle-orm';
import { describe, expect, it } from 'vitest';
import { withTenant } from '../../src/db/client.js';
import { notifications } from '../../src/db/schema/index.js';
import { api, setupTestApp } from '../helpers/app.js';
import { newTenant, newUser } from '../helpers/factories.js';

/**
 * Routes marked `readOnly` (the reads: lists, single reads, summaries, reports) begin their transaction READ ONLY with the
 * principal check and answer without waiting for COMMIT's reply (AheadOptions.readOnly in
 * src/db/client.ts). That is safe only because PostgreSQL refuses every write in such a
 * transaction: a write there must fail, never be committed after the answer. PGlite has no
 * transaction begun ahead, so there the flag changes nothing.
 */
const ctx = setupTestApp({}, (app) => {
  app.get('/api/test/read-only/count', { config: { authenticated: true, readOnly: true } }, async (request) =>
    withTenant(ctx.db, request.auth, async (tx) => {
      const [row] = await tx.select({ n: sql<number>`count(*)::int` }).from(notifications).where(eq(notifications.userId, request.auth.userId));
      return row;
    }),
  );
  app.get('/api/test/read-only/write', { config: { authenticated: true, readOnly: true } }, async (request) =>
    withTenant(ctx.db, request.auth, async (tx) => {
      await tx.insert(notifications).values({ tenantId: request.auth.tenantId, userId: request.auth.userId, type: 'task.assigned', title: 'written', body: 'b' });
      return { written: true };
    }),
  );
});
const onPostgres = Boolean(process.env.DATABASE_URL);

describe('read-only routes', () => {
  it('read as usual and keep no connection', async () => {
    const t = await newTenant(ctx);
    const u = await newUser(ctx, t, []);
    await ctx.db.insert(notifications).values({ tenantId: t.id, userId: u.id, type: 'task.assigned', title: 'x', body: 'b' });
    // The test pool has 5 connections: one kept per request would hang every request after the fifth.
    for (let i = 0; i < 8; i++) expect((await api(ctx.app, u.token).get('/api/test/read-only/count')).json()).toEqual({ n: 1 });
  }, 30_000);

  it('refuse a write on PostgreSQL: nothing is committed', async () => {
    const t = await newTenant(ctx);
    const u = await newUser(ctx, t, []);
    const res = await api(ctx.app, u.token).get('/api/test/read-only/write');
    const written = await ctx.db.select().from(notifications).where(and(eq(notifications.tenantId, t.id), eq(notifications.title, 'written')));
    if (onPostgres) {
      expect(res.statusCode).toBe(500);
      expect(written).toHaveLength(0);
    } else {
      expect(res.statusCode).toBe(200);
      expect(written).toHaveLength(1);
    }
    // The connection of the failed request went back to the pool.
    for (let i = 0; i < 6; i++) expect((await api(ctx.app, u.token).get('/api/test/read-only/count')).statusCode).toBe(200);
  }, 30_000);
});
