import { sql } from 'drizzle-orm';
import { recordChanges } from '../../changes/recorder.js';
import { withTenant, type Db } from '../../db/client.js';
import { addDays, dayOfWeek, todayIn } from '../../lib/periods.js';
import type { DemoContext } from '../module.js';
import { insertContributions, type NewContribution } from './contributions.repository.js';
import { currencyOf, rowsOf } from './finance.common.js';

/**
 * Demo giving: three funds, a closed batch (balanced) and an open one, 30 gifts from the demo
 * people over the last six Sundays (some split between funds), and a building pledge.
 */
export async function seedFinanceDemo(db: Db, demo: DemoContext): Promise<void> {
  await withTenant(db, demo.tenantId, async (tx) => {
    const t = demo.tenantId;
    const fundIds = rowsOf<{ id: unknown }>(
      await tx.execute(sql`insert into funds (tenant_id, name, code, description, is_tax_deductible) values
        (${t}, 'General', 'GEN', 'Tithes and offerings', true), (${t}, 'Building', 'BLD', 'New sanctuary', true), (${t}, 'Missions', 'MIS', 'Mission partners', true)
        returning id`),
    ).map((r) => Number(r.id));
    const [general, building, missions] = fundIds;
    const today = todayIn('UTC');
    const lastSunday = addDays(today, -dayOfWeek(today));
    const donors = [...demo.people, ...demo.morePeople].slice(0, 15);
    const gifts: NewContribution[] = [];
    for (let week = 0; week < 6; week++) {
      const date = addDays(lastSunday, -7 * week);
      for (let i = 0; i < 5; i++) {
        const contactId = donors[(week * 5 + i) % donors.length];
        const amount = 2000 + ((week * 7 + i * 13) % 9) * 500;
        const lines = i === 0 ? [{ fundId: general, amount: amount - 1000 }, { fundId: building, amount: 1000 }] : [{ fundId: i === 4 ? missions : general, amount }];
        gifts.push({ contactId, date, amount, method: i % 2 ? 'MobileMoney' : 'Cash', reference: null, notes: null, batchId: null, lines });
      }
    }
    const batch = async (name: string, date: string, items: NewContribution[]) => {
      const total = items.reduce((s, g) => s + g.amount, 0);
      const [row] = rowsOf<{ id: unknown }>(
        await tx.execute(sql`insert into batches (tenant_id, name, date, control_amount, control_count) values (${t}, ${name}, ${date}::date, ${total}, ${items.length}) returning id`),
      );
      for (const g of items) g.batchId = Number(row.id);
      return Number(row.id);
    };
    const closedId = await batch('Sunday offerings (earlier weeks)', addDays(lastSunday, -7), gifts.slice(5));
    await batch('Sunday offering (this week)', lastSunday, gifts.slice(0, 5));
    const ids = await insertContributions(tx, t, gifts);
    await tx.execute(sql`update batches set status = 'Closed', closed_at = now(), closed_by = ${demo.adminUserId} where tenant_id = ${t} and id = ${closedId}`);
    const year = today.slice(0, 4);
    const [pledge] = rowsOf<{ id: unknown }>(
      await tx.execute(sql`insert into pledges (tenant_id, contact_id, fund_id, amount, frequency, start_date, end_date, campaign)
        values (${t}, ${donors[0]}, ${building}, 5000, 'Monthly', ${`${year}-01-01`}::date, ${`${year}-12-31`}::date, 'New sanctuary') returning id`),
    );
    const actor = { tenantId: t, userId: demo.adminUserId };
    const currency = await currencyOf(tx, t);
    await recordChanges(tx, actor, [
      ...gifts.map((g, i) => ({ type: 'contribution.created' as const, entityId: ids[i], data: { contactId: g.contactId, amount: g.amount, currency, batchId: g.batchId, fundIds: g.lines.map((l) => l.fundId) } })),
      { type: 'batch.closed' as const, entityId: closedId, data: { batchId: closedId } },
      { type: 'pledge.created' as const, entityId: Number(pledge.id), data: { contactId: donors[0], amount: 5000, fundIds: [building] } },
    ]);
  });
}
