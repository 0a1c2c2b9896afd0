import { sql } from 'drizzle-orm';
import { describe, expect, it } from 'vitest';
import { withTenant } from '../../src/db/client.js';
import { contactsGaveSinceSql, financeSummary } from '../../src/modules/finance/finance.queries.js';
import { setupTestApp } from '../helpers/app.js';
import { newTenant } from '../helpers/factories.js';

const ctx = setupTestApp();

describe('finance queries other modules reuse', () => {
  it('financeSummary runs in a caller transaction and contactsGaveSinceSql is a subquery', async () => {
    const t = await newTenant(ctx);
    const auth = { tenantId: t.id, permissions: new Set(['finance:read'] as const) };
    const summary = await withTenant(ctx.db, t.id, (tx) => financeSummary(tx, auth, { from: '2026-01-01', to: '2026-03-31' }));
    expect(summary.data.map((d) => d.period)).toEqual(['2026-01-01', '2026-02-01', '2026-03-01']);
    expect(summary.totals).toEqual({ total: 0, count: 0, donors: 0, averageGift: 0 });
    const rows = await withTenant(ctx.db, t.id, (tx) => tx.execute(sql`select count(*)::int as n from contacts where id in ${contactsGaveSinceSql(t.id, '2026-01-01')}`));
    expect((rows as unknown as { rows: { n: number }[] }).rows[0].n).toBe(0);
  });
});
