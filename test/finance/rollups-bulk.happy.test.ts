import { sql } from 'drizzle-orm';
import { describe, expect, it } from 'vitest';
import { withTenant } from '../../src/db/client.js';
import { api, setupTestApp } from '../helpers/app.js';
import { newCompany, newPerson } from '../helpers/contacts.factories.js';
import { newTenant } from '../helpers/factories.js';
import { newFund, newGift } from '../helpers/finance.factories.js';

/**
 * The giving rollups after bulk writes (migration 0026): a CSV import of many gifts in one request
 * (donors matched by phone and by name, unmatched payers, a donor giving in several weeks and twice
 * in one: more than one pass of the apply at commit, weeks across the new year), split and refunded
 * gifts, then deletes of many gifts in ONE statement (the per-statement delete triggers: every
 * deleted gift's lines go by their foreign key's cascade) and a delete rolled back; each time the
 * rollup tables equal the raw aggregate of contributions and lines, for this tenant and another.
 */
const ctx = setupTestApp();

const q = async <T>(query: ReturnType<typeof sql>) => ((await ctx.db.execute(query)) as unknown as { rows: T[] }).rows;

/** The rollup tables and what they must hold, recomputed from contributions (as rollups.happy.test.ts does). */
async function rollupsAndRaw(tenantId: number) {
  const days = await q(sql`select date::text, fund_id::int, method, net::int, gifts, entries from giving_days
    where tenant_id = ${tenantId} and (net <> 0 or gifts <> 0 or entries <> 0) order by 1, 2, 3`);
  const rawDays = await q(sql`
    select c.date::text, coalesce(f.fund_id, 0)::int as fund_id, c.method, sum(f.net)::int as net, sum((c.status <> 'Refunded')::int)::int as gifts, count(*)::int as entries
    from (select contribution_id, fund_id, sum(amount - refunded_amount) as net from contribution_lines where tenant_id = ${tenantId} group by contribution_id, rollup (fund_id)) f
    join contributions c on c.tenant_id = ${tenantId} and c.id = f.contribution_id
    group by 1, 2, 3 order by 1, 2, 3`);
  const periods = sql`
    select k.kind, k.year, coalesce(f.fund_id, 0)::int as fund_id, c.contact_id::int as contact_id, k.idx
    from (select distinct contribution_id, fund_id from contribution_lines where tenant_id = ${tenantId}
          union all select distinct contribution_id, null::bigint from contribution_lines where tenant_id = ${tenantId}) f
    join contributions c on c.tenant_id = ${tenantId} and c.id = f.contribution_id
    cross join lateral (values ('month', extract(year from c.date)::int, extract(month from c.date)::int),
      ('week', extract(year from c.date - extract(dow from c.date)::int)::int, (extract(doy from c.date - extract(dow from c.date)::int)::int - 1) / 7 + 1)) k(kind, year, idx)
    where c.contact_id is not null and c.status <> 'Refunded'`;
  const donors = await q(sql`select kind, year, fund_id::int, contact_id::int, i::int as idx, x::int as n
    from giving_donor_periods, unnest(n) with ordinality u(x, i) where tenant_id = ${tenantId} and x <> 0 order by 1, 2, 3, 4, 5`);
  const rawDonors = await q(sql`select kind, year, fund_id, contact_id, idx, count(*)::int as n from (${periods}) p
    group by 1, 2, 3, 4, 5 order by 1, 2, 3, 4, 5`);
  const masks = await q(sql`select kind, year, fund_id::int, mask::text, donors from giving_donor_masks
    where tenant_id = ${tenantId} and donors <> 0 order by 1, 2, 3, 4`);
  const rawMasks = await q(sql`select kind, year, fund_id, mask::text, count(*)::int as donors from (
      select kind, year, fund_id, contact_id, bit_or(1::bigint << (idx - 1)) as mask from (${periods}) p group by 1, 2, 3, 4) x
    group by 1, 2, 3, 4 order by 1, 2, 3, 4`);
  return { days, rawDays, donors, rawDonors, masks, rawMasks };
}

async function expectExact(tenantId: number, label: string) {
  const r = await rollupsAndRaw(tenantId);
  expect(r.days, `${label}: giving_days`).toEqual(r.rawDays);
  expect(r.donors, `${label}: giving_donor_periods`).toEqual(r.rawDonors);
  expect(r.masks, `${label}: giving_donor_masks`).toEqual(r.rawMasks);
  const [{ n }] = await q<{ n: number }>(sql`select count(*)::int as n from giving_deleted_contributions where tenant_id = ${tenantId}`);
  expect(n, `${label}: nothing left staged`).toBe(0);
}

describe('giving rollups after bulk writes', () => {
  it('equal the raw aggregate after a large import, deletes of many gifts in one statement and a rolled-back delete', async () => {
    const t = await newTenant(ctx);
    const other = await newTenant(ctx);
    const token = t.admin.token;
    const a = await newFund(ctx, token, { name: 'General', code: 'GEN' });
    const b = await newFund(ctx, token, { name: 'Building' });
    const people = await Promise.all(
      ['Ann', 'Ben', 'Cy', 'Di', 'Ed', 'Flo'].map((first, i) => newPerson(ctx, t, first, 'Giver', { phones: [{ value: `+256 772 100 ${String(i).padStart(3, '0')}` }] })),
    );
    const acme = await newCompany(ctx, t, 'Acme Builders');
    // Gifts of the other tenant must stay as they are.
    const otherFund = await newFund(ctx, other.admin.token, { name: 'General' });
    await newGift(ctx, other.admin.token, { contactId: null, date: '2025-12-28', amount: 999, fundId: otherFund.id });

    // A bank / mobile-money statement over the new year: by phone (digits or as written), by name,
    // the company by name, payers nobody knows; Ann gives every few days (several weeks, twice in one).
    const rows: string[] = ['date,amount,fund,method,phone,name,reference'];
    const dates = ['2025-12-21', '2025-12-24', '2025-12-28', '2025-12-31', '2026-01-01', '2026-01-04', '2026-01-06', '2026-01-11', '2026-02-01'];
    for (let i = 0; i < 240; i++) {
      const date = dates[i % dates.length];
      const fund = i % 3 === 0 ? 'Building' : i % 2 ? 'GEN' : 'General';
      const who = i % 8;
      const payer =
        who < 3 ? `25677210000${who},ACCOUNT HOLDER ${who}`
        : who === 3 ? `,${'Di Giver'}`
        : who === 4 ? `+256 772 100 004,`
        : who === 5 ? `,Acme Builders`
        : who === 6 ? `+256 799 ${String(i).padStart(6, '0')},Stranger ${i}`
        : `,  ed   GIVER `;
      rows.push(`${date},${100 + i},${fund},${who < 3 || who === 6 ? 'MobileMoney' : 'BankTransfer'},${payer},R-${i}`);
    }
    const imported = await ctx.app.inject({
      method: 'POST', url: '/api/finance/contributions/import', payload: `${rows.join('\r\n')}\r\n`,
      headers: { authorization: `Bearer ${token}`, 'content-type': 'text/csv' },
    });
    expect(imported.statusCode, imported.body.slice(0, 300)).toBe(200);
    expect(imported.json()).toMatchObject({ total: 240, failed: 0, unmatched: 30, matched: 210 });
    expect(imported.json().rows.filter((r: { contactId: number | null }) => r.contactId === acme.id)).toHaveLength(30);

    // Split gifts through the API, one partly and one fully refunded.
    const split = (amount: number) => [{ fundId: a.id, amount: amount - 100 }, { fundId: b.id, amount: 100 }];
    const g1 = await newGift(ctx, token, { contactId: people[0].id, date: '2025-12-28', amount: 700, lines: split(700) });
    const g2 = await newGift(ctx, token, { contactId: people[1].id, date: '2026-01-04', amount: 500, lines: split(500) });
    await newGift(ctx, token, { contactId: people[5].id, date: '2026-01-06', amount: 300, lines: split(300) });
    expect((await api(ctx.app, token).post(`/api/finance/contributions/${g1.id}/refund`, { amount: 250 })).statusCode).toBe(200);
    expect((await api(ctx.app, token).post(`/api/finance/contributions/${g2.id}/refund`, { amount: 500 })).statusCode).toBe(200);
    await expectExact(t.id, 'after the import');

    // Many gifts in one statement, as a service or a script deletes them (RLS, the tenant bound).
    const deleted = await withTenant(ctx.db, t.id, async (tx) =>
      ((await tx.execute(sql`delete from contributions where tenant_id = ${t.id} and (id % 3 = 0 or contact_id = ${people[0].id} or id in (${g1.id}, ${g2.id})) returning id`)) as unknown as { rows: unknown[] }).rows.length);
    expect(deleted).toBeGreaterThan(80);
    await expectExact(t.id, 'after a delete of many');

    // A delete rolled back leaves the rollups (and the staging table) as they were.
    await expect(withTenant(ctx.db, t.id, async (tx) => {
      await tx.execute(sql`delete from contributions where tenant_id = ${t.id}`);
      throw new Error('roll back');
    })).rejects.toThrow('roll back');
    await expectExact(t.id, 'after a rolled-back delete');

    // Two deletes and an insert in one transaction; then every gift.
    await withTenant(ctx.db, t.id, async (tx) => {
      await tx.execute(sql`delete from contributions where tenant_id = ${t.id} and date < '2026-01-01'`);
      await tx.execute(sql`delete from contributions where tenant_id = ${t.id} and contact_id = ${acme.id}`);
    });
    await expectExact(t.id, 'after two deletes in one transaction');
    expect((await api(ctx.app, token).get('/api/finance/summary?from=2025-12-01&to=2025-12-31')).json().totals).toMatchObject({ total: 0, count: 0, donors: 0 });
    await withTenant(ctx.db, t.id, (tx) => tx.execute(sql`delete from contributions where tenant_id = ${t.id}`));
    await expectExact(t.id, 'after deleting every gift');
    const rest = await q<{ n: number }>(sql`select count(*)::int as n from giving_days where tenant_id = ${t.id} and (net <> 0 or gifts <> 0 or entries <> 0)`);
    expect(rest[0].n).toBe(0);

    await expectExact(other.id, 'the other tenant');
    expect((await q(sql`select net::int, entries from giving_days where tenant_id = ${other.id} and fund_id = 0`))).toEqual([{ net: 999, entries: 1 }]);
  });
});
