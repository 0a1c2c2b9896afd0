import { sql, type SQL } from 'drizzle-orm';
import { addDays } from '../../lib/periods.js';
import { containsPattern } from '../../lib/like.js';
import { subtreeFilter, visibleGroupFilter, type GroupScope } from '../groups/groups.visibility.js';
import type { CheckedCondition, CheckedCriteria, TextField } from './criteria.js';
import { prefixPattern } from './text-match.js';

/**
 * Checked conditions → one SQL predicate over "contacts" (with "persons" left-joined by the caller).
 * Every value travels as a bound parameter of a drizzle `sql` fragment; column and table names are
 * fixed text of this file, never input.
 */

export interface CompileContext {
  tenantId: number;
  scope: GroupScope;
  /** Today in the tenant's time zone (YYYY-MM-DD), and the zone itself. */
  today: string;
  timeZone: string;
  /** memberOf/notMemberOf groups: their path when visible to the caller, null when not (matches nobody). */
  groupPaths: Map<number, string | null>;
  /** Attendance and giving fragments (contact-sources.ts). */
  sources: ContactSources;
}

/** Subqueries yielding contact ids; `since` is a tenant-local date (YYYY-MM-DD), inclusive. */
export interface ContactSources {
  attendedSince(tenantId: number, since: string): SQL;
  firstVisitSince(tenantId: number, since: string): SQL;
  gaveSince(tenantId: number, since: string): SQL;
}

const fold = (value: SQL) => sql`search_fold(${value})`;
const param = (value: string) => sql`${value}::text`;

/** Text fields stored on the contact or its person row (addresses are a child table: see below). */
const COLUMN: Record<Exclude<TextField, 'city' | 'country'>, SQL> = {
  firstName: sql`"persons"."first_name"`,
  lastName: sql`"persons"."last_name"`,
  occupation: sql`"persons"."occupation"`,
  gender: sql`"persons"."gender"`,
  civilStatus: sql`"persons"."civil_status"`,
  status: sql`"contacts"."status"`,
  category: sql`"contacts"."category"`,
};

type TextCondition = Extract<CheckedCondition, { field: TextField }>;

/** The positive test of a text condition on one column (neq and isEmpty are built from these). */
function textTest(col: SQL, c: TextCondition): SQL {
  switch (c.op) {
    case 'eq':
    case 'neq':
      return sql`${fold(col)} = ${fold(param(c.value))}`;
    case 'in':
      return sql`${fold(col)} in (${sql.join(c.value.map((v) => fold(param(v))), sql`, `)})`;
    case 'contains':
      return sql`${fold(col)} like ${fold(param(containsPattern(c.value)))}`;
    case 'startsWith':
      return sql`${fold(col)} like ${fold(param(prefixPattern(c.value)))}`;
    case 'isEmpty':
      return sql`coalesce(${col}, '') <> ''`;
  }
}

/** neq and isEmpty hold for a missing value too (a company has no first name: it is "not Ann"). */
function textCondition(c: TextCondition, tenantId: number): SQL {
  const negate = c.op === 'neq' || (c.op === 'isEmpty' && c.value);
  if (c.field === 'city' || c.field === 'country') {
    // Any of the contact's addresses: "city eq Kampala" = one of them is in Kampala.
    const col = c.field === 'city' ? sql`a.city` : sql`a.country`;
    const ids = sql`(select a.contact_id from contact_addresses a where a.tenant_id = ${tenantId} and ${textTest(col, c)})`;
    return negate ? sql`"contacts"."id" not in ${ids}` : sql`"contacts"."id" in ${ids}`;
  }
  const test = textTest(COLUMN[c.field], c);
  return negate ? sql`not coalesce(${test}, false)` : sql`coalesce(${test}, false)`;
}

const dob = sql`"persons"."date_of_birth"`;
/** The date `years` years before today (29 February falls back to the 28th). */
const yearsAgo = (today: string, years: number) => sql`(${today}::date - make_interval(years => ${years}::int))::date`;

/** Age in whole years on `today`, as date-of-birth ranges (an index range, no per-row age()). */
function ageCondition(c: Extract<CheckedCondition, { field: 'age' }>, today: string): SQL {
  // age ≥ n ⇔ dob ≤ today − n years; age ≤ n ⇔ dob > today − (n+1) years.
  const atLeast = (n: number) => sql`${dob} <= ${yearsAgo(today, n)}`;
  const atMost = (n: number) => sql`${dob} > ${yearsAgo(today, n + 1)}`;
  switch (c.op) {
    case 'eq':
      return sql`(${atLeast(c.value)} and ${atMost(c.value)})`;
    case 'gt':
      return atLeast(c.value + 1);
    case 'lt':
      return c.value === 0 ? sql`false` : sql`(${atMost(c.value - 1)} and ${dob} <= ${today}::date)`;
    case 'between':
      return sql`(${atLeast(c.value[0])} and ${atMost(c.value[1])})`;
  }
}

function dateOfBirthCondition(c: Extract<CheckedCondition, { field: 'dateOfBirth' }>): SQL {
  switch (c.op) {
    case 'eq':
      return sql`${dob} = ${c.value}::date`;
    case 'gt':
      return sql`${dob} > ${c.value}::date`;
    case 'lt':
      return sql`${dob} < ${c.value}::date`;
    case 'between':
      return sql`${dob} between ${c.value[0]}::date and ${c.value[1]}::date`;
  }
}

/**
 * Days from today to the next birthday (0 = today), fewer than n. The next birthday is the date of
 * birth plus one year more than the whole years completed yesterday.
 */
function birthdayCondition(n: number, today: string): SQL {
  const next = sql`(${dob} + make_interval(years => date_part('year', age(${today}::date - 1, ${dob}))::int + 1))::date`;
  return sql`(${dob} <= ${today}::date and (${next} - ${today}::date) between 0 and ${n - 1})`;
}

/** Active memberships in visible groups only: a search never reveals a membership the caller may not see. */
function membershipIds(tenantId: number, scope: GroupScope, filter: SQL): SQL {
  return sql`(select m.contact_id from group_memberships m
    join "groups" on "groups".tenant_id = m.tenant_id and "groups".id = m.group_id
    where m.tenant_id = ${tenantId} and m.is_active and ${filter} and ${visibleGroupFilter(scope)})`;
}

function memberCondition(c: Extract<CheckedCondition, { field: 'memberOf' | 'notMemberOf' }>, ctx: CompileContext): SQL {
  const path = ctx.groupPaths.get(c.value) ?? null;
  const ids = path === null ? null : membershipIds(ctx.tenantId, ctx.scope, subtreeFilter(sql`"groups"."path"` as never, path));
  if (c.field === 'memberOf') return ids ? sql`"contacts"."id" in ${ids}` : sql`false`;
  return ids ? sql`"contacts"."id" not in ${ids}` : sql`true`;
}

/** "Within n days" = on one of the last n days of the tenant's calendar, today included. */
const sinceDate = (today: string, days: number) => addDays(today, -(days - 1));

function compileOne(c: CheckedCondition, ctx: CompileContext): SQL {
  const { tenantId, today, timeZone, sources } = ctx;
  switch (c.field) {
    case 'age':
      return ageCondition(c, today);
    case 'dateOfBirth':
      return dateOfBirthCondition(c);
    case 'birthdayInDays':
      return birthdayCondition(c.value, today);
    case 'memberOf':
    case 'notMemberOf':
      return memberCondition(c, ctx);
    case 'role':
      return sql`"contacts"."id" in ${membershipIds(tenantId, ctx.scope, sql`m.role = ${c.value}`)}`;
    case 'attendedWithinDays':
      return sql`"contacts"."id" in ${sources.attendedSince(tenantId, sinceDate(today, c.value))}`;
    case 'notAttendedWithinDays':
      return sql`"contacts"."id" not in ${sources.attendedSince(tenantId, sinceDate(today, c.value))}`;
    case 'firstVisitWithinDays':
      return sql`"contacts"."id" in ${sources.firstVisitSince(tenantId, sinceDate(today, c.value))}`;
    case 'gaveWithinDays':
      return sql`"contacts"."id" in ${sources.gaveSince(tenantId, sinceDate(today, c.value))}`;
    case 'notGaveWithinDays':
      return sql`"contacts"."id" not in ${sources.gaveSince(tenantId, sinceDate(today, c.value))}`;
    case 'createdWithinDays':
      return sql`"contacts"."created_at" >= (${sinceDate(today, c.value)}::date::timestamp at time zone ${timeZone})`;
    default:
      return textCondition(c, tenantId);
  }
}

/** The criteria's predicate (without the tenant filter, which the statement adds). */
export function compileCriteria(criteria: CheckedCriteria, ctx: CompileContext): SQL {
  const parts = criteria.conditions.map((c) => sql`(${compileOne(c, ctx)})`);
  return sql`(${sql.join(parts, criteria.match === 'any' ? sql` or ` : sql` and `)})`;
}
