import { sql } from 'drizzle-orm';
import type { Analyze, InTenant } from './bulk-insert.js';
import type { GenTree } from './gen-groups.js';
import type { SizeSpec } from './sizes.js';

/**
 * Data of the modules built on the core (attendance, tasks, finance, changes), generated in SQL
 * (INSERT … SELECT over generate_series): millions of rows load in seconds, and the rows go through
 * the same constraints and triggers as the service's (the attendance insert trigger fills dates,
 * groups and first visits). Deterministic: choices hash the row's ids instead of drawing randoms.
 */
export interface ModulesDataset {
  /** The `New people` pipeline (the board scenario). */
  pipelineId: number;
  /** A donor with a year of weekly gifts (statement scenarios). */
  donorContactId: number;
  /** A contact with many changes (the audit scenario). */
  auditContactId: number;
  /** The last day of the generated year (summaries and reports end here). */
  yearEnd: string;
  /** A session the check-in scenario checks families into. */
  checkinSessionId: number;
}

const YEAR_START = '2025-01-05'; // a Sunday
const YEAR_END = '2025-12-31';

const rows = (r: unknown) => (r as { rows: Record<string, unknown>[] }).rows;

/** A weekly meeting for every fellowship, a year of sessions, 30% of the active members present at each. */
export async function insertMeetings(inTenant: InTenant, analyze: Analyze, tenantId: number, tree: GenTree): Promise<void> {
  const fellowships = tree.levels[5];
  await inTenant((tx) => tx.execute(sql`insert into attendance_services (tenant_id, name, group_id, day_of_week, start_time, frequency)
    select ${tenantId}::bigint, 'Weekly meeting', g, 3, '19:00', 'Weekly' from unnest(${`{${fellowships.join(',')}}`}::bigint[]) g`));
  await inTenant((tx) => tx.execute(sql`insert into attendance_sessions (tenant_id, date, source, service_id, group_id)
    select s.tenant_id, (d + interval '3 days')::date, 'Service', s.id, s.group_id
    from attendance_services s, generate_series(${YEAR_START}::date, ${YEAR_END}::date - 3, interval '7 days') d
    where s.tenant_id = ${tenantId}`));
  await analyze(['attendance_sessions', 'contact_first_visits', 'retention_visitors']);
  await inTenant((tx) => tx.execute(sql`insert into attendance_records (tenant_id, session_id, contact_id, kind, attended_at)
    select x.tenant_id, x.id, m.contact_id, 'Regular', x.date + time '19:30'
    from attendance_sessions x
    join group_memberships m on m.tenant_id = x.tenant_id and m.group_id = x.group_id and m.is_active
    where x.tenant_id = ${tenantId} and x.source = 'Service' and abs(hashint8(x.id * 1000003 + m.contact_id)) % 10 < 3
    on conflict do nothing`));
}

/** Tasks, and the cards of the New people pipeline with their open tasks; returns the pipeline's id. */
export async function insertFollowUp(inTenant: InTenant, tenantId: number, spec: SizeSpec, tree: GenTree, contactIds: number[], adminUserId: number): Promise<number> {
  // Tasks: spread over the admin (a tenth: "assignee=me"), other leaders and nobody; a third overdue.
  const n = contactIds.length;
  await inTenant((tx) => tx.execute(sql`insert into tasks (tenant_id, title, status, priority, due_date, assignee_user_id, created_by_user_id, contact_id, group_id, created_at)
    select ${tenantId}::bigint, 'Follow up ' || i, (array['Open','Open','InProgress','Done','Cancelled'])[1 + i % 5],
      (array['Low','Normal','Normal','High','Urgent'])[1 + i % 5], date '2026-01-01' + (i % 400 - 200),
      case when i % 10 = 0 then ${adminUserId}::bigint end, ${adminUserId}::bigint,
      ${contactIds[0]}::bigint + (i::bigint * 7919) % ${n}, (${`{${tree.all.join(",")}}`}::bigint[])[1 + i % ${tree.all.length}],
      timestamptz '2025-01-01' + make_interval(mins => i)
    from generate_series(1, ${spec.tasks}) i`));
  // The New people pipeline (seeded with the tenant): cards spread over its steps, each with its open task.
  const [pipeline] = rows(await inTenant((tx) => tx.execute(sql`select id from pipelines where tenant_id = ${tenantId} and name = 'New people'`)));
  const pipelineId = Number(pipeline.id);
  await inTenant((tx) => tx.execute(sql`with steps as (
      select id, row_number() over (order by position) - 1 as k, count(*) over () as n from pipeline_steps where tenant_id = ${tenantId} and pipeline_id = ${pipelineId})
    insert into pipeline_cards (tenant_id, pipeline_id, step_id, contact_id, assignee_user_id, entered_step_at)
    select ${tenantId}::bigint, ${pipelineId}::bigint, s.id, ${contactIds[0]}::bigint + (i::bigint * 104729) % ${n},
      case when i % 3 = 0 then ${adminUserId}::bigint end, timestamptz '2025-06-01' + make_interval(hours => i)
    from generate_series(1, ${Math.min(spec.pipelineCards, n)}) i join steps s on s.k = i % s.n
    on conflict do nothing`));
  await inTenant((tx) => tx.execute(sql`insert into tasks (tenant_id, title, status, due_date, assignee_user_id, contact_id, card_id, created_at)
    select c.tenant_id, s.name, 'Open', (c.entered_step_at + make_interval(days => s.due_in_days))::date, c.assignee_user_id, c.contact_id, c.id, c.entered_step_at
    from pipeline_cards c join pipeline_steps s on s.tenant_id = c.tenant_id and s.id = c.step_id
    where c.tenant_id = ${tenantId} and c.pipeline_id = ${pipelineId}`));
  return pipelineId;
}

/** Gifts whose lines go in before the contribution lines are analyzed (see insertGiving). */
const FIRST_LINES = 10_000;

/** Three funds, a closed batch per week, weekly gifts from `givingShare` of the contacts, one line each. */
export async function insertGiving(inTenant: InTenant, analyze: Analyze, tenantId: number, spec: SizeSpec, contactIds: number[], adminUserId: number): Promise<void> {
  const n = contactIds.length;
  await inTenant((tx) => tx.execute(sql`insert into funds (tenant_id, name, code, is_tax_deductible)
    values (${tenantId}, 'General', 'GEN', true), (${tenantId}, 'Building', 'BLD', true), (${tenantId}, 'Missions', 'MIS', true)`));
  await inTenant((tx) => tx.execute(sql`insert into batches (tenant_id, name, date, status, control_count, closed_at, closed_by)
    select ${tenantId}::bigint, 'Sunday ' || d::date, d::date, 'Closed', 0, d + interval '1 day', ${adminUserId}::bigint
    from generate_series(${YEAR_START}::date, ${YEAR_END}::date, interval '7 days') d`));
  const givers = Math.round(n * spec.givingShare);
  await inTenant((tx) => tx.execute(sql`insert into contributions (tenant_id, contact_id, date, amount, method, batch_id)
    select b.tenant_id, ${contactIds[0]}::bigint + g, b.date, 500 + (g * 37 + w * 11) % 20000,
      (array['Cash','Check','Card','BankTransfer','MobileMoney','Online'])[1 + (g + w) % 6], b.id
    from (select id, tenant_id, date, row_number() over (order by date) as w from batches where tenant_id = ${tenantId}) b,
      generate_series(0, ${givers - 1}) g`));
  // The line trigger finds the new lines' gifts and lines by `tenant_id = … AND id = ANY (the statement's
  // ids)`. Planned with statistics that give the tenant a few rows, that is a scan of all the tenant's rows,
  // each compared with the whole array: quadratic (38 s for medium's 104,000 gifts; huge's 6.2M would never
  // end). So the gifts are analyzed first, then the lines of the first 10,000 gifts go in and are analyzed,
  // and the rest follow in one statement planned as index probes (see Analyze).
  await analyze(['contributions']);
  const lines = (part: ReturnType<typeof sql>) => inTenant((tx) => tx.execute(sql`insert into contribution_lines (tenant_id, contribution_id, fund_id, amount)
    select c.tenant_id, c.id, f.id, c.amount from contributions c
    join funds f on f.tenant_id = c.tenant_id and f.code = (array['GEN','GEN','GEN','BLD','MIS'])[1 + c.id % 5]
    where c.tenant_id = ${tenantId} and ${part}`));
  const [first] = rows(await inTenant((tx) => tx.execute(sql`select min(id) + ${FIRST_LINES} as id from contributions where tenant_id = ${tenantId}`)));
  await lines(sql`c.id < ${first.id}`);
  await analyze(['contribution_lines']);
  await lines(sql`c.id >= ${first.id}`);
  await inTenant((tx) => tx.execute(sql`update batches b set control_amount = t.total, control_count = t.n
    from (select batch_id, sum(amount) as total, count(*) as n from contributions where tenant_id = ${tenantId} group by batch_id) t
    where b.tenant_id = ${tenantId} and b.id = t.batch_id`));
}

/** `spec.changes` contact updates spread over the contacts, 200 of them on one contact (returned). */
export async function insertChanges(inTenant: InTenant, tenantId: number, spec: SizeSpec, contactIds: number[], adminUserId: number): Promise<number> {
  const n = contactIds.length;
  const auditContactId = contactIds[Math.min(5, n - 1)];
  await inTenant((tx) => tx.execute(sql`insert into changes (tenant_id, type, entity_type, entity_id, actor_user_id, changes, data, occurred_at)
    select ${tenantId}::bigint, 'contact.updated', 'contact', c, ${adminUserId}::bigint,
      jsonb_build_object('status', jsonb_build_object('from', 'Active', 'to', 'Inactive')), jsonb_build_object('contactId', c), at
    from (select case when i % ${Math.max(1, Math.floor(spec.changes / 200))} = 0 then ${auditContactId}::bigint else ${contactIds[0]}::bigint + (i::bigint * 7919) % ${n} end as c,
      timestamptz '2025-01-01' + make_interval(secs => i * 30) as at
      from generate_series(1, ${spec.changes}) i) x`));
  return auditContactId;
}

/** The modules' part of the data set the scenarios read, once everything is loaded. */
export async function modulesDataset(inTenant: InTenant, tenantId: number, contactIds: number[], pipelineId: number, auditContactId: number): Promise<ModulesDataset> {
  const [session] = rows(await inTenant((tx) => tx.execute(sql`select id from attendance_sessions where tenant_id = ${tenantId} order by date desc, id limit 1`)));
  return { pipelineId, donorContactId: contactIds[0], auditContactId, yearEnd: YEAR_END, checkinSessionId: Number(session.id) };
}
