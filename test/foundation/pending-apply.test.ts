import { sql } from 'drizzle-orm';
import { describe, expect, it } from 'vitest';
import { withTenant } from '../../src/db/client.js';
import { setupTestApp } from '../helpers/app.js';
import { newTenant } from '../helpers/factories.js';

const ctx = setupTestApp();

/** A queued row of each counter queue whose delta is zero (the apply moves it and changes nothing). */
const QUEUES: Record<string, (tenantId: number) => ReturnType<typeof sql>> = {
  contact_count_pending: (t) => sql`insert into contact_count_pending (xid, tenant_id, category, status, n)
    select pg_current_xact_id(), ${t}, 'Person', 'Active', 0 from generate_series(1, 300)`,
  group_count_pending: (t) => sql`insert into group_count_pending (xid, tenant_id, privacy, n)
    select pg_current_xact_id(), ${t}, 'Public', 0 from generate_series(1, 300)`,
  attendance_count_pending: (t) => sql`insert into attendance_count_pending (xid, tenant_id, date, did_not_meet)
    select pg_current_xact_id(), ${t}, date '2026-01-04', false from generate_series(1, 300)`,
  task_unassigned_pending: (t) => sql`insert into task_unassigned_pending (xid, tenant_id, group_id, confidential, created_by_user_id, n)
    select pg_current_xact_id(), ${t}, 0, false, 0, 0 from generate_series(1, 300)`,
};

/**
 * Migration 0025: the commit-time apply of a counter queue fires once per transaction (again only
 * for rows queued after it ran), not once per queued row — per row, every firing rescanned the rows
 * the first one had moved, and a commit grew with the square of its queued rows.
 */
describe('counter queues apply once per transaction', () => {
  for (const [queue, insert] of Object.entries(QUEUES)) {
    it(`${queue}: 900 rows queued by three statements and a rolled-back savepoint mark one apply; the commit moves them all`, async () => {
      const t = await newTenant(ctx);
      const marked = await withTenant(ctx.db, t.id, async (tx) => {
        // The first row queued inside a savepoint that rolls back: its mark goes with it.
        await tx.execute(sql`savepoint s`);
        await tx.execute(insert(t.id));
        await tx.execute(sql`rollback to savepoint s`);
        for (let i = 0; i < 3; i++) await tx.execute(insert(t.id));
        const res = await tx.execute(sql.raw(`select count(*) filter (where apply) as applies, count(*) as queued from ${queue} where xid = pg_current_xact_id()`));
        return (res as unknown as { rows: { applies: string | number; queued: string | number }[] }).rows[0];
      });
      expect({ applies: Number(marked.applies), queued: Number(marked.queued) }).toEqual({ applies: 1, queued: 900 });
      const left = await ctx.db.execute(sql.raw(`select count(*) as n from ${queue} where tenant_id = ${t.id}`));
      expect(Number((left as unknown as { rows: { n: string | number }[] }).rows[0].n)).toBe(0);
    });
  }
});
