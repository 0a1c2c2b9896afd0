import { sql } from 'drizzle-orm';
import { describe, expect, it } from 'vitest';
import { api, setupTestApp } from '../helpers/app.js';
import { newPerson } from '../helpers/contacts.factories.js';
import { newTenant } from '../helpers/factories.js';
import { newBatch, newFund, newTreasurer } from '../helpers/finance.factories.js';

/**
 * The rows a giving import writes, exactly: each gift's columns and line, and one queued
 * `contribution.created` change per gift (entity, actor, no field changes, data = changeData's
 * {contactId, amount, currency, batchId, fundIds, date, method} with imported and unmatched), the
 * change ids in row order. Texts with quotes, backslashes, commas, braces, "NULL" and non-ASCII
 * characters arrive as sent.
 */
const ctx = setupTestApp();

const q = async <T>(query: ReturnType<typeof sql>) => ((await ctx.db.execute(query)) as unknown as { rows: T[] }).rows;

describe('giving import writes', () => {
  it('writes each gift, its line and its queued change exactly, in row order', async () => {
    const t = await newTenant(ctx);
    const tr = await newTreasurer(ctx, t);
    const general = await newFund(ctx, tr.token, { name: 'General', code: 'GEN' });
    const building = await newFund(ctx, tr.token, { name: 'Building' });
    const batch = await newBatch(ctx, tr.token);
    const ann = (await newPerson(ctx, t, 'Ann', 'Byphone', { phones: [{ value: '+256 772 555 001' }] })).id;
    const bob = (await newPerson(ctx, t, 'Bob', 'Byname')).id;
    const odd = 'a "quoted" \\ back,slash {brace} NULL ünïcødé ✓';
    const csv = [
      'date,amount,fund,contactId,email,phone,name,method,reference',
      `2026-02-01,1500,General,${ann},,,,Cash,R-1`,
      '2026-02-02,250,gen,,,256772555001,,MobileMoney,',
      '2026-02-03,99,Building,,,,bob byname,BankTransfer,"R,3"',
      `2026-02-04,7,General,,"x@example.org",,"${odd.replace(/"/g, '""')}",Other,"${odd.replace(/"/g, '""')}"`,
      '2026-02-05,8,General,,,,,,',
      '2026-02-06,abc,General,,,,,,',
      '2026-02-07,9,Nope,,,,,,',
      '2026-02-08,10,Building,,,,NULL,Check,NULL',
    ].join('\r\n');
    const res = await ctx.app.inject({
      method: 'POST', url: `/api/finance/contributions/import?batchId=${batch.id}`, payload: csv,
      headers: { authorization: `Bearer ${tr.token}`, 'content-type': 'text/csv' },
    });
    expect(res.statusCode, res.body).toBe(200);
    expect(res.json()).toMatchObject({ total: 8, created: 4, matched: 3, unmatched: 2, failed: 2 });

    const gifts = await q<Record<string, unknown>>(sql`
      select c.id::int, c.contact_id::int, c.date::text, c.amount::int, c.method, c.reference, c.notes, c.batch_id::int, c.is_unmatched,
        c.payer_name, c.payer_email, c.payer_phone, c.status, c.refunded_amount::int,
        (select json_agg(json_build_array(l.fund_id::int, l.amount::int, l.refunded_amount::int)) from contribution_lines l
          where l.tenant_id = c.tenant_id and l.contribution_id = c.id) as lines
      from contributions c where c.tenant_id = ${t.id} order by c.id`);
    const gift = (contactId: number | null, date: string, amount: number, method: string, reference: string | null, fundId: number,
      unmatched: boolean, payer: [string | null, string | null, string | null]) => ({
      contact_id: contactId, date, amount, method, reference, notes: null, batch_id: batch.id, is_unmatched: unmatched,
      payer_name: payer[0], payer_email: payer[1], payer_phone: payer[2], status: 'Completed', refunded_amount: 0, lines: [[fundId, amount, 0]],
    });
    const expected = [
      gift(ann, '2026-02-01', 1500, 'Cash', 'R-1', general.id, false, [null, null, null]),
      gift(ann, '2026-02-02', 250, 'MobileMoney', null, general.id, false, [null, null, null]),
      gift(bob, '2026-02-03', 99, 'BankTransfer', 'R,3', building.id, false, [null, null, null]),
      gift(null, '2026-02-04', 7, 'Other', odd, general.id, true, [odd, 'x@example.org', null]),
      gift(null, '2026-02-05', 8, 'Other', null, general.id, false, [null, null, null]),
      gift(null, '2026-02-08', 10, 'Check', 'NULL', building.id, true, ['NULL', null, null]),
    ];
    expect(gifts.map(({ id: _id, ...g }) => g)).toEqual(expected);

    const recorded = await q<Record<string, unknown>>(sql`
      select x.id::int, x.type, x.entity_type, x.entity_id::int, x.actor_user_id::int, x.changes, x.data,
        exists (select 1 from change_queue cq where cq.tenant_id = x.tenant_id and cq.change_id = x.id) as queued
      from changes x where x.tenant_id = ${t.id} and x.type like 'contribution.%' order by x.id`);
    expect(recorded.map((c) => c.entity_id)).toEqual(gifts.map((g) => g.id));
    expect(recorded.map(({ id: _id, data, ...c }) => ({ ...c, data: typeof data === 'string' ? JSON.parse(data) : data }))).toEqual(
      expected.map((g, i) => ({
        type: 'contribution.created', entity_type: 'contribution', entity_id: gifts[i].id, actor_user_id: tr.id, changes: null, queued: true,
        data: {
          contactId: g.contact_id, amount: g.amount, currency: 'USD', batchId: batch.id, fundIds: [g.lines[0][0]], date: g.date, method: g.method,
          imported: true, unmatched: g.is_unmatched,
        },
      })),
    );
    // The changes' ids and the gifts' ids both follow the rows.
    expect([...recorded.map((c) => c.id as number)].sort((a, b) => a - b)).toEqual(recorded.map((c) => c.id));
    expect([...gifts.map((g) => g.id as number)].sort((a, b) => a - b)).toEqual(gifts.map((g) => g.id));

    // Without a batch: batchId null in the gift and in its change.
    const plain = await api(ctx.app, tr.token).post('/api/finance/contributions/import', { rows: [{ date: '2026-03-01', amount: 5, fund: 'General' }] });
    expect(plain.json()).toMatchObject({ created: 1 });
    const [last] = await q<{ batch_id: unknown; data: unknown }>(sql`select c.batch_id, x.data from contributions c
      join changes x on x.tenant_id = c.tenant_id and x.entity_type = 'contribution' and x.entity_id = c.id
      where c.tenant_id = ${t.id} order by c.id desc limit 1`);
    expect(last.batch_id).toBeNull();
    expect(typeof last.data === 'string' ? JSON.parse(last.data) : last.data).toEqual({
      contactId: null, amount: 5, currency: 'USD', batchId: null, fundIds: [general.id], date: '2026-03-01', method: 'Other', imported: true, unmatched: false,
    });
  });
});
