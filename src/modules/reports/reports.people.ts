import { sql, type SQL } from 'drizzle-orm';
import { CONTACT_STATUSES } from '../../db/schema/enums.js';
import { addDays, defaultWindow, periodSeriesSql } from '../../lib/periods.js';
import { num, type ReportDefinition, type Row } from './report.types.js';
import { dayStartSql, groupsIn, rowsOf, type HierarchyScope } from './scope.js';

/**
 * Reports over contacts. Contacts are tenant-wide (api-contract §4: contacts:read, no hierarchy
 * filter), so without groupId these cover the whole tenant; with groupId, the contacts with an
 * active membership in a visible group of that scope.
 */
export function contactInScope(tenantId: number, h: HierarchyScope | null, contactIdExpr: SQL): SQL {
  if (!h?.root) return sql`true`;
  return sql`exists (select 1 from group_memberships m join groups g on g.tenant_id = m.tenant_id and g.id = m.group_id
    where m.tenant_id = ${tenantId} and m.contact_id = ${contactIdExpr} and m.is_active and ${groupsIn(h)})`;
}

/** SQL: first and last name of contact `c` (persons `p`, companies `co` left-joined). */
export const contactNames = sql`coalesce(p.first_name, co.name, '') as first_name, coalesce(p.last_name, '') as last_name`;
export const joinNames = (tenantId: number, contactIdExpr: SQL) =>
  sql`left join persons p on p.tenant_id = ${tenantId} and p.contact_id = ${contactIdExpr} left join companies co on co.tenant_id = ${tenantId} and co.contact_id = ${contactIdExpr}`;

const statusKey = (s: string) => `to${s}`;

export const growthReport: ReportDefinition = {
  key: 'growth',
  name: 'Growth',
  description: 'Per month: new contacts, and status changes to each contact status (from the change feed).',
  permissions: ['contacts:read'],
  hierarchy: true,
  params: [],
  defaultWindow: (today) => defaultWindow(today, 'month', 12),
  columns: [
    { key: 'month', label: 'Month', type: 'date' },
    { key: 'newContacts', label: 'New contacts', type: 'integer' },
    ...CONTACT_STATUSES.map((s) => ({ key: statusKey(s), label: `To ${s}`, type: 'integer' as const })),
  ],
  async run({ tx, tenantId, timeZone, window, scope }) {
    const status = sql`coalesce(c.data ->> 'to', c.changes -> 'status' ->> 'to')`;
    const rows = rowsOf<Record<string, unknown>>(
      await tx.execute(sql`
        with ch as (
          select date_trunc('month', (c.occurred_at at time zone ${timeZone})::date)::date as month, c.type, ${status} as status
          from changes c
          where c.tenant_id = ${tenantId} and c.type in ('contact.created', 'contact.status_changed')
            and c.occurred_at >= ${dayStartSql(window.from, timeZone)} and c.occurred_at < ${dayStartSql(addDays(window.to, 1), timeZone)}
            and ${contactInScope(tenantId, scope, sql`c.entity_id`)}
        )
        select to_char(p.period, 'YYYY-MM-DD') as month, count(ch.type) filter (where ch.type = 'contact.created') as new_contacts,
          ${sql.join(CONTACT_STATUSES.map((s) => sql`count(ch.type) filter (where ch.type = 'contact.status_changed' and ch.status = ${s}) as ${sql.identifier(statusKey(s))}`), sql`, `)}
        from ${periodSeriesSql(window.from, window.to, 'month')} p left join ch on ch.month = p.period
        group by p.period order by p.period`),
    );
    const out: Row[] = rows.map((r) => ({
      month: r.month,
      newContacts: num(r.new_contacts),
      ...Object.fromEntries(CONTACT_STATUSES.map((s) => [statusKey(s), num(r[statusKey(s)])])),
    }));
    const totals: Row = { newContacts: out.reduce((a, r) => a + (r.newContacts as number), 0) };
    for (const s of CONTACT_STATUSES) totals[statusKey(s)] = out.reduce((a, r) => a + (r[statusKey(s)] as number), 0);
    return { rows: out, totals };
  },
};

export const occasionsReport: ReportDefinition = {
  key: 'occasions',
  name: 'Birthdays and anniversaries',
  description:
    'Birthdays (date of birth, or a Birthday occasion) and Anniversary occasions falling in the window (default: the next 30 days), with the age or years they mark. Deceased contacts are left out.',
  permissions: ['contacts:read'],
  hierarchy: true,
  params: [],
  defaultWindow: (today) => ({ from: today, to: addDays(today, 30) }),
  columns: [
    { key: 'contact', label: 'Contact', type: 'contact' },
    { key: 'type', label: 'Type', type: 'string' },
    { key: 'date', label: 'Date', type: 'date' },
    { key: 'nextOn', label: 'Next on', type: 'date' },
    { key: 'years', label: 'Years', type: 'integer' },
  ],
  async run({ tx, tenantId, window, scope }) {
    const rows = rowsOf<{ contact_id: unknown; first_name: string; last_name: string; type: string; date: string; next_on: string; years: unknown }>(
      await tx.execute(sql`${occasionsSql(tenantId, window.from, window.to, contactInScope(tenantId, scope, sql`o.contact_id`))}
        select o.contact_id, o.first_name, o.last_name, o.type, to_char(o.d, 'YYYY-MM-DD') as date, to_char(o.next_on, 'YYYY-MM-DD') as next_on, o.years
        from occ o
        order by o.next_on, last_name, first_name, o.contact_id, o.type`),
    );
    const out = rows.map((r) => ({
      contact: { id: num(r.contact_id), firstName: r.first_name, lastName: r.last_name },
      type: r.type, date: r.date, nextOn: r.next_on, years: num(r.years),
    }));
    return {
      rows: out,
      totals: { birthdays: out.filter((r) => r.type === 'Birthday').length, anniversaries: out.filter((r) => r.type === 'Anniversary').length },
    };
  },
};

const monthDay = (date: string) => Number(date.slice(5, 7)) * 100 + Number(date.slice(8, 10));

/**
 * The month-days (month * 100 + day) whose dates can fall in [from, to], as ranges: none to test
 * (null) when the window spans a whole year, one range inside a year, two when the window wraps the
 * year end. A superset, not the answer: 29 February falls on the 28th in other years, so a range
 * ending on 28 February takes in the 29th too, and occasionsSql still computes every date exactly.
 */
export function monthDayRanges(from: string, to: string): [number, number][] | null {
  const yearOn = `${String(Number(from.slice(0, 4)) + 1).padStart(4, '0')}${from.slice(4)}`;
  if (to >= yearOn || (from.slice(5) === '02-29' && to >= `${yearOn.slice(0, 4)}-02-28`)) return null;
  const end = (md: number) => (md === 228 ? 229 : md);
  const [a, b] = [monthDay(from), monthDay(to)];
  return from.slice(0, 4) === to.slice(0, 4) ? [[a, end(b)]] : [[a, 1231], [101, end(b)]];
}

/**
 * SQL `with … occ as (contact_id, type, d, first_name, last_name, next_on, years)`: every birthday and
 * anniversary falling in [from, to] (one row per occurrence; 29 February falls on the 28th in other
 * years), with the contact's names (a birthday from the person's row carries them: no second lookup).
 * The dates are first narrowed by month and day (monthDayRanges, through migration 0027's functions
 * over its month-day indexes), so a week's occasions read that week's people, not every date of
 * birth of the tenant.
 */
export function occasionsSql(tenantId: number, from: string, to: string, where: SQL = sql`true`): SQL {
  const ranges = monthDayRanges(from, to);
  // Under row level security no expression index serves the month-day ranges: 0027's functions read
  // them as their owner, for the caller's tenant. A window of a whole year reads every date.
  const bounds = ranges && sql`${`{${[...ranges[0], ...(ranges[1] ?? [0, -1])].join(',')}}`}::integer[]`;
  const birthdays = bounds
    ? sql`select p.contact_id, p.date_of_birth, p.first_name, p.last_name from occasion_birthdays(${bounds}) p`
    : sql`select p.contact_id, p.date_of_birth, p.first_name, p.last_name from persons p where p.tenant_id = ${tenantId} and p.date_of_birth is not null`;
  const dated = bounds
    ? sql`select o.contact_id, o.type, o.date from occasion_dates(${bounds}) o`
    : sql`select o.contact_id, o.type, o.date from contact_occasions o
        where o.tenant_id = ${tenantId} and o.type in ('Birthday', 'Anniversary') and o.date is not null`;
  return sql`with src as (
      select p.contact_id, 'Birthday' as type, p.date_of_birth as d, p.first_name, p.last_name from (${birthdays}) p
      union
      select o.contact_id, o.type, o.date, ${contactNames} from (${dated}) o ${joinNames(tenantId, sql`o.contact_id`)}
    ), occ as (
      select o.contact_id, o.type, o.d, o.first_name, o.last_name, x.next_on, x.years
      from src o
      join contacts c on c.tenant_id = ${tenantId} and c.id = o.contact_id and c.status <> 'Deceased'
      cross join generate_series(extract(year from ${from}::date)::int, extract(year from ${to}::date)::int) as y(year)
      cross join lateral (select (o.d + make_interval(years => y.year - extract(year from o.d)::int))::date as next_on,
                                 y.year - extract(year from o.d)::int as years) x
      where x.years >= 1 and x.next_on between ${from}::date and ${to}::date and ${where}
    )`;
}
