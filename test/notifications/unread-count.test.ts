import { eq } from 'drizzle-orm';
import { describe, expect, it } from 'vitest';
import { notifications, users } from '../../src/db/schema/index.js';
import { api, expectError, setupTestApp } from '../helpers/app.js';
import { newTenant, newUser, type TestTenant, type TestUser } from '../helpers/factories.js';

/**
 * GET /api/notifications/unread-count is read with the principal check (on PostgreSQL in the same
 * message, between BEGIN and COMMIT: AheadOptions.readAhead in src/db/client.ts). What must hold
 * whichever way it is read: the caller's own unread count in the caller's tenant, a user disabled
 * after the token was issued refused at once, and no connection kept by any request.
 */
const ctx = setupTestApp();
const URL = '/api/notifications/unread-count';

async function notify(t: TestTenant, u: TestUser, count: number, read = false) {
  for (let i = 0; i < count; i++) {
    await ctx.db.insert(notifications).values({ tenantId: t.id, userId: u.id, type: 'task.assigned', title: `n${i}`, body: 'b', readAt: read ? new Date() : null });
  }
}

describe('unread notification count', () => {
  it("counts the caller's own unread notifications in the caller's tenant only", async () => {
    const t = await newTenant(ctx);
    const other = await newTenant(ctx);
    const a = await newUser(ctx, t, []);
    const b = await newUser(ctx, t, []);
    const elsewhere = await newUser(ctx, other, []);
    await notify(t, a, 3);
    await notify(t, a, 2, true);
    await notify(t, b, 1);
    await notify(other, elsewhere, 4);
    expect((await api(ctx.app, a.token).get(URL)).json()).toEqual({ count: 3 });
    expect((await api(ctx.app, b.token).get(URL)).json()).toEqual({ count: 1 });
    expect((await api(ctx.app, t.admin.token).get(URL)).json()).toEqual({ count: 0 });
    expect((await api(ctx.app, elsewhere.token).get(URL)).json()).toEqual({ count: 4 });
    expect((await api(ctx.app, a.token).put('/api/notifications/read-all')).json()).toEqual({ updated: 3 });
    expect((await api(ctx.app, a.token).get(URL)).json()).toEqual({ count: 0 });
  });

  it('refuses a user disabled after the token was issued at once, and keeps no connection, however the request ends', async () => {
    const t = await newTenant(ctx);
    const reader = await newUser(ctx, t, []);
    const disabled = await newUser(ctx, t, []);
    await notify(t, reader, 2);
    await notify(t, disabled, 5);
    expect((await api(ctx.app, disabled.token).get(URL)).json()).toEqual({ count: 5 });
    await ctx.db.update(users).set({ status: 'Disabled' }).where(eq(users.id, disabled.id));
    // The test pool has 5 connections: one kept per request would hang every request after the fifth.
    for (let i = 0; i < 8; i++) {
      const refused = await api(ctx.app, disabled.token).get(URL);
      expectError(refused, 401);
      expect(refused.body).not.toContain('count');
      expect((await api(ctx.app, reader.token).get(URL)).json()).toEqual({ count: 2 });
      expectError(await api(ctx.app, 'not-a-token').get(URL), 401);
    }
    await ctx.db.update(users).set({ status: 'Active' }).where(eq(users.id, disabled.id));
    expect((await api(ctx.app, disabled.token).get(URL)).json()).toEqual({ count: 5 });
  }, 30_000);
});
