import { sql } from 'drizzle-orm';
import { describe, expect, it } from 'vitest';
import { api, setupTestApp } from '../helpers/app.js';
import { newTenant } from '../helpers/factories.js';

const ctx = setupTestApp();

describe('Idempotency-Key responses at rest', () => {
  it('are sealed: a webhook secret shown once is not readable in idempotency_keys, yet the replay returns it', async () => {
    const t = await newTenant(ctx);
    const admin = api(ctx.app, t.admin.token);
    const body = { url: 'http://127.0.0.1:9/hook', events: ['*'] };
    const first = await admin.post('/api/notifications/webhooks', body, { 'idempotency-key': 'hook-1' });
    expect(first.statusCode, first.body).toBe(201);
    const { secret } = first.json();
    expect(secret).toMatch(/^whsec_/);
    const stored = await ctx.db.execute(sql`select response_body from idempotency_keys where tenant_id = ${t.id} and key = 'hook-1'`);
    const [row] = (stored as unknown as { rows: { response_body: string }[] }).rows;
    expect(row.response_body).toMatch(/^v1:/);
    expect(row.response_body).not.toContain(secret);
    const replay = await admin.post('/api/notifications/webhooks', body, { 'idempotency-key': 'hook-1' });
    expect(replay.headers['idempotent-replayed']).toBe('true');
    expect(replay.json()).toEqual(first.json());
  });
});
