import { sql, type SQL } from 'drizzle-orm';
import { fieldChanges, recordChanges } from '../../changes/recorder.js';
import { withTenant, type Db } from '../../db/client.js';
import type { PledgeFrequency } from '../../db/schema/finance.js';
import { BadRequestError, NotFoundError } from '../../lib/errors.js';
import { MAX_AMOUNT, toMinor } from '../../lib/money.js';
import { pageResult, toPage } from '../../lib/pagination.js';
import type { Principal } from '../../plugins/auth.js';
import { checkLineFunds } from './contributions.service.js';
import { assertContact, currencyOf, rowsOf } from './finance.common.js';
import { PLEDGE_OCCURRENCES } from './finance.queries.js';
import type { CreatePledgeBody, ListPledgesQuery, PledgeItem, UpdatePledgeBody } from './finance.schemas.js';

/**
 * Pledges. totalPledged = amount × the occurrences of the frequency between startDate and endDate
 * (both included; OneTime is one); givenAmount = the contact's gifts (net of refunds) to the fund
 * dated between the two (no end date: from the start on). All computed in SQL, in integers.
 */

const OCCURRENCES = PLEDGE_OCCURRENCES;

interface PledgeRow {
  id: unknown; contact_id: unknown; first_name: string; last_name: string; fund_id: unknown; fund_name: string; amount: unknown;
  frequency: PledgeFrequency; start_date: string; end_date: string | null; campaign: string | null; occurrences: unknown;
  total_pledged: unknown; given: unknown; created_ms: unknown;
}

function select(tenantId: number, where: SQL): SQL {
  return sql`
    select pl.id, pl.contact_id, coalesce(p.first_name, co.name, '') as first_name, coalesce(p.last_name, '') as last_name,
      pl.fund_id, f.name as fund_name, pl.amount, pl.frequency, pl.start_date::text as start_date, pl.end_date::text as end_date, pl.campaign,
      ${OCCURRENCES} as occurrences, (pl.amount * ${OCCURRENCES})::bigint as total_pledged,
      (select coalesce(sum(l.amount - l.refunded_amount), 0)::bigint from contributions c
        join contribution_lines l on l.tenant_id = c.tenant_id and l.contribution_id = c.id and l.fund_id = pl.fund_id
        where c.tenant_id = pl.tenant_id and c.contact_id = pl.contact_id and c.date >= pl.start_date
          and (pl.end_date is null or c.date <= pl.end_date)) as given,
      floor(extract(epoch from pl.created_at) * 1000)::float8 as created_ms
    from pledges pl
    join funds f on f.tenant_id = pl.tenant_id and f.id = pl.fund_id
    left join persons p on p.tenant_id = pl.tenant_id and p.contact_id = pl.contact_id
    left join companies co on co.tenant_id = pl.tenant_id and co.contact_id = pl.contact_id
    where pl.tenant_id = ${tenantId} and ${where}`;
}

function toPledge(r: PledgeRow, currency: string): PledgeItem {
  const totalPledged = toMinor(r.total_pledged);
  const givenAmount = toMinor(r.given);
  return {
    id: Number(r.id), contactId: Number(r.contact_id), contact: { id: Number(r.contact_id), firstName: r.first_name, lastName: r.last_name },
    fundId: Number(r.fund_id), fund: { id: Number(r.fund_id), name: r.fund_name }, amount: toMinor(r.amount), currency, frequency: r.frequency,
    startDate: r.start_date, endDate: r.end_date, campaign: r.campaign, occurrences: Number(r.occurrences), totalPledged, givenAmount,
    remainingAmount: Math.max(totalPledged - givenAmount, 0),
    // A ratio, not money: one decimal, from integers.
    percentComplete: totalPledged > 0 ? Number((BigInt(givenAmount) * 1000n) / BigInt(totalPledged)) / 10 : 0,
    createdAt: new Date(Number(r.created_ms)).toISOString(),
  };
}

/** What every pledge change carries in data (money keys are amount or end in Amount: the audit hides them without finance:read). */
const pledgeData = (p: PledgeItem) => ({
  contactId: p.contactId, fundId: p.fundId, fundName: p.fund.name, fundIds: [p.fundId], amount: p.amount, currency: p.currency, frequency: p.frequency,
  totalPledgedAmount: p.totalPledged, campaign: p.campaign,
});
/** The stored fields of a pledge, for the {from, to} diff of pledge.updated. */
const fieldsOf = (p: PledgeItem) => ({ fundId: p.fundId, amount: p.amount, frequency: p.frequency, startDate: p.startDate, endDate: p.endDate, campaign: p.campaign });

function checkPeriod(frequency: PledgeFrequency, startDate: string, endDate: string | null): void {
  if (endDate !== null && endDate < startDate) throw new BadRequestError(`body/endDate must not precede startDate (${startDate})`);
  if (frequency !== 'OneTime' && endDate === null) throw new BadRequestError(`body/endDate is required for a ${frequency} pledge`);
}

/**
 * The pledge's total (amount × occurrences, counted by the same SQL as the reads) is money like any
 * amount: at most 10^12 (modules-contract §0), else 400. Unbounded, a weekly pledge of 10^12 over
 * centuries passed 2^53 and every read of it failed.
 */
async function checkTotal(tx: Db, p: { amount: number; frequency: PledgeFrequency; startDate: string; endDate: string | null }): Promise<void> {
  const [row] = rowsOf<{ occurrences: unknown }>(await tx.execute(sql`select ${OCCURRENCES} as occurrences
    from (select ${p.frequency}::text as frequency, ${p.startDate}::date as start_date, ${p.endDate}::date as end_date) pl`));
  const occurrences = Number(row.occurrences);
  // Exact up to 2^53, and far above 10^12 beyond it: the comparison is right either way.
  if (p.amount * occurrences > MAX_AMOUNT) {
    throw new BadRequestError(
      `body/amount × occurrences must be at most ${MAX_AMOUNT}: ${p.amount} × ${occurrences} ${p.frequency} occurrences ` +
        `from ${p.startDate} to ${p.endDate} is ${BigInt(p.amount) * BigInt(occurrences)}`,
    );
  }
}

export function createPledgesService({ db }: { db: Db }) {
  async function load(tx: Db, tenantId: number, id: number, currency?: string): Promise<PledgeItem> {
    const [row] = rowsOf<PledgeRow>(await tx.execute(select(tenantId, sql`pl.id = ${id}`)));
    if (!row) throw new NotFoundError('Pledge', id);
    return toPledge(row, currency ?? (await currencyOf(tx, tenantId)));
  }

  return {
    list: (auth: Principal, query: ListPledgesQuery) =>
      withTenant(db, auth, async (tx) => {
        const page = toPage(query);
        const parts: SQL[] = [sql`true`];
        if (query.contactId !== undefined) parts.push(sql`pl.contact_id = ${query.contactId}`);
        if (query.fundId !== undefined) parts.push(sql`pl.fund_id = ${query.fundId}`);
        if (query.campaign !== undefined) parts.push(sql`pl.campaign = ${query.campaign}`);
        const where = sql.join(parts, sql` and `);
        const total = Number(rowsOf<{ n: unknown }>(await tx.execute(sql`select count(*) as n from pledges pl where pl.tenant_id = ${auth.tenantId} and ${where}`))[0].n);
        const rows = rowsOf<PledgeRow>(await tx.execute(sql`${select(auth.tenantId, where)} order by pl.start_date desc, pl.id desc limit ${page.limit} offset ${page.offset}`));
        const currency = await currencyOf(tx, auth.tenantId);
        return pageResult(page, rows.map((r) => toPledge(r, currency)), total);
      }),

    get: (auth: Principal, id: number) => withTenant(db, auth, (tx) => load(tx, auth.tenantId, id)),

    create: (auth: Principal, body: CreatePledgeBody) => {
      checkPeriod(body.frequency, body.startDate, body.endDate ?? null);
      return withTenant(db, auth, async (tx) => {
        const t = auth.tenantId;
        await assertContact(tx, t, body.contactId);
        await checkLineFunds(tx, t, [{ fundId: body.fundId, amount: body.amount }]);
        await checkTotal(tx, { amount: body.amount, frequency: body.frequency, startDate: body.startDate, endDate: body.endDate ?? null });
        const [row] = rowsOf<{ id: unknown }>(
          await tx.execute(sql`insert into pledges (tenant_id, contact_id, fund_id, amount, frequency, start_date, end_date, campaign)
            values (${t}, ${body.contactId}, ${body.fundId}, ${body.amount}, ${body.frequency}, ${body.startDate}::date, ${body.endDate ?? null}::date, ${body.campaign ?? null})
            returning id`),
        );
        const pledge = await load(tx, t, Number(row.id));
        await recordChanges(tx, auth, [{ type: 'pledge.created', entityId: pledge.id, data: pledgeData(pledge) }]);
        return pledge;
      });
    },

    update: (auth: Principal, id: number, body: UpdatePledgeBody) =>
      withTenant(db, auth, async (tx) => {
        const t = auth.tenantId;
        const before = await load(tx, t, id);
        const next = {
          fundId: body.fundId ?? before.fundId, amount: body.amount ?? before.amount, frequency: body.frequency ?? before.frequency,
          startDate: body.startDate ?? before.startDate, endDate: body.endDate !== undefined ? body.endDate : before.endDate,
          campaign: body.campaign !== undefined ? body.campaign : before.campaign,
        };
        checkPeriod(next.frequency, next.startDate, next.endDate);
        if (body.fundId !== undefined && body.fundId !== before.fundId) await checkLineFunds(tx, t, [{ fundId: body.fundId, amount: next.amount }]);
        await checkTotal(tx, next);
        await tx.execute(sql`update pledges set fund_id = ${next.fundId}, amount = ${next.amount}, frequency = ${next.frequency}, start_date = ${next.startDate}::date,
          end_date = ${next.endDate}::date, campaign = ${next.campaign}, updated_at = now() where tenant_id = ${t} and id = ${id}`);
        const after = await load(tx, t, id, before.currency);
        const changes = fieldChanges(fieldsOf(before), fieldsOf(after));
        if (changes) await recordChanges(tx, auth, [{ type: 'pledge.updated', entityId: id, changes, data: pledgeData(after) }]);
        return after;
      }),

    remove: (auth: Principal, id: number) =>
      withTenant(db, auth, async (tx) => {
        const pledge = await load(tx, auth.tenantId, id);
        await tx.execute(sql`delete from pledges where tenant_id = ${auth.tenantId} and id = ${id}`);
        await recordChanges(tx, auth, [{ type: 'pledge.deleted', entityId: id, data: pledgeData(pledge) }]);
      }),
  };
}
