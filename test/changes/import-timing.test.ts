import { sql } from 'drizzle-orm';
import os from 'node:os';
import { performance } from 'node:perf_hooks';
import { recordChanges } from '../../src/changes/recorder.js';
import { withTenant } from '../../src/db/client.js';
import { beforeAll, describe, expect, it } from 'vitest';
import { api, setupTestApp } from '../helpers/app.js';
import { newTenant, type TestTenant } from '../helpers/factories.js';
import { rows } from './helpers.js';

/** Issue 11: importing 1,000 contacts records 1,000 changes (one statement per batch) and stays under 0.5 s on PostgreSQL. */
describe('contacts import of 1,000 rows', () => {
  const ctx = setupTestApp();
  let t: TestTenant;
  beforeAll(async () => {
    t = await newTenant(ctx);
    // Warm up the routes and statements once.
    await api(ctx.app, t.admin.token).post('/api/crm/contacts/import', { contacts: [{ firstName: 'Warm', lastName: 'Up' }] });
  });

  it('records one contact.created per contact and stays fast', async () => {
    const contacts = Array.from({ length: 1000 }, (_, i) => ({ firstName: `Bulk${i}`, lastName: 'Import', email: `bulk${i}@example.org`, phone: `+256 700 ${String(i).padStart(6, '0')}` }));
    const started = performance.now();
    const res = await api(ctx.app, t.admin.token).post('/api/crm/contacts/import', { contacts });
    const ms = performance.now() - started;
    expect(res.json()).toMatchObject({ created: 1000, failed: 0 });
    const [{ n, actors }] = await rows<{ n: string; actors: string }>(ctx, sql`select count(*) as n, count(distinct actor_user_id) as actors from changes
      where tenant_id = ${t.id} and type = 'contact.created' and data->>'imported' = 'true' and (data->>'contactId')::bigint = entity_id`);
    expect(Number(n)).toBe(1001);
    expect(Number(actors)).toBe(1);
    // The recording's own share: the same 1,000 changes in one recordChanges call, in a transaction of their own.
    const items = Array.from({ length: 1000 }, (_, i) => ({ type: 'contact.created' as const, entityId: 1_000_000 + i, data: { contactId: 1_000_000 + i, category: 'Person', status: 'Active', imported: true } }));
    const recordStarted = performance.now();
    await withTenant(ctx.db, t.id, (tx) => recordChanges(tx, { tenantId: t.id, userId: t.admin.id }, items));
    const recordMs = performance.now() - recordStarted;
    const load = os.loadavg()[0];
    console.log(`import of 1,000 contacts with their changes: ${ms.toFixed(0)} ms; recording 1,000 changes alone: ${recordMs.toFixed(0)} ms ` +
      `(${process.env.DATABASE_URL ? 'PostgreSQL' : 'PGlite'}, load average ${load.toFixed(1)} on ${os.cpus().length} cores)`);
    // The 0.5 s budget holds on an idle machine; a machine shared by many test runs measures the queue, not the import.
    if (process.env.DATABASE_URL && load < os.cpus().length) expect(ms).toBeLessThan(500);
    expect(recordMs).toBeLessThan(process.env.DATABASE_URL ? 1000 : 3000);
  });
});
