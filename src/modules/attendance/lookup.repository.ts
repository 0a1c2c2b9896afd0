import { sql, type SQL } from 'drizzle-orm';
import type { Db } from '../../db/client.js';
import { rowsOf } from './attendance.queries.js';

/**
 * The people a check-in kiosk reaches (modules-contract §8, the trust issue): the family lookup
 * answers only them, and a caller without contacts:read checks in only them. A person is reachable
 * when the contact is a Person, Active or Inactive (not Deceased, MovedAway or
 * TransferredToAnotherChurch), not erased, and not known to the church only through non-public
 * groups (every active membership in a Private group: a kiosk must not learn of them).
 * `c` and `p` are the aliases of the person's contacts and persons rows in the enclosing query.
 */
export function reachablePerson(tenantId: number, c: 'c' | 'rc', p: 'p' | 'rp'): SQL {
  const contact = sql.raw(c);
  const person = sql.raw(p);
  const memberOf = (privacy: SQL) => sql`exists (select 1 from group_memberships km join groups kg on kg.tenant_id = km.tenant_id and kg.id = km.group_id
      where km.tenant_id = ${tenantId} and km.contact_id = ${contact}.id and km.is_active and ${privacy})`;
  return sql`(${contact}.category = 'Person' and ${contact}.status in ('Active', 'Inactive')
    and not (${person}.last_name = 'Erased' and exists (select 1 from changes ch where ch.tenant_id = ${tenantId} and ch.entity_type = 'contact'
      and ch.entity_id = ${contact}.id and ch.type = 'contact.erased'))
    and (not ${memberOf(sql`kg.privacy <> 'Public'`)} or ${memberOf(sql`kg.privacy = 'Public'`)}))`;
}

/** What the family lookup searches by: the beginning of a last name, or a run of phone digits. */
export type LookupTerm = { lastName: string } | { phoneDigits: string };

/** Entries answered at most (modules-contract §8). */
export const LOOKUP_ENTRIES = 20;
/**
 * Matching people read, in name order. A household holds at most 30 members, so the first 600
 * reachable matches name the 20 first entries whenever 20 exist; the first 100 nearly always do (a
 * common prefix matches many small families), so the lookup reads 100 first and 600 only when those
 * 100 were not all the matches and named fewer than 20 entries (measured at large: "wil", 402 matches,
 * read 600 in 17 ms of the statement's 18).
 */
const FIRST_HITS = 100;
const ALL_HITS = LOOKUP_ENTRIES * 30;

export interface LookupRow {
  rn: unknown;
  household_id: unknown;
  household_name: string | null;
  id: unknown;
  first_name: string;
  last_name: string;
  role: string | null;
  age: unknown;
  /** How many matching people the statement read. */
  hits: unknown;
}

/**
 * The family lookup of check-in in one statement: the reachable people matching the term (a range
 * of persons_last_name_fold_col_idx walked in name order, or the phone-digits trigram index), ranked by
 * name; one entry per household with a match (its reachable members, by their order in it) or per
 * matching person outside any household, ordered by their first match; ages in whole years on today
 * in the tenant's time zone. Rows come ordered by entry (`rn`), then member order.
 */
export async function lookupFamilies(tx: Db, tenantId: number, term: LookupTerm): Promise<LookupRow[]> {
  const first = await lookupWithin(tx, tenantId, term, FIRST_HITS);
  const entries = new Set(first.map((r) => String(r.rn))).size;
  if (entries >= LOOKUP_ENTRIES || Number(first[0]?.hits ?? 0) < FIRST_HITS) return first;
  return lookupWithin(tx, tenantId, term, ALL_HITS);
}

async function lookupWithin(tx: Db, tenantId: number, term: LookupTerm, hits: number): Promise<LookupRow[]> {
  const t = tenantId;
  // In the index's own order (text_pattern_ops, by code point: USING ~<~), so that the walk stops after
  // `hits` reachable people; ordered by the collation, every match was read, checked and sorted first.
  const order = sql`p.last_name_fold using ~<~, search_fold(p.first_name), p.contact_id`;
  // On the stored folded name (migration 0046): a condition on it is an index condition under row level security.
  const match = 'lastName' in term
    ? sql`p.tenant_id = ${t} and p.last_name_fold ~>=~ search_fold(${term.lastName}) and p.last_name_fold ~<~ (search_fold(${term.lastName}) || chr(1114111))`
    : sql`c.tenant_id = ${t} and c.phone_digits like ${`%${term.phoneDigits}%`}`;
  return rowsOf<LookupRow>(
    await tx.execute(sql`
      with hit as (
        select p.contact_id as id, row_number() over (order by ${order}) as rn
        from (
          select p.contact_id, p.first_name, p.last_name, p.last_name_fold
          from persons p join contacts c on c.tenant_id = p.tenant_id and c.id = p.contact_id
          where ${match} and ${reachablePerson(t, 'c', 'p')}
          order by ${order} limit ${hits}
        ) p
      ), entries as (
        select m.household_id, case when m.household_id is null then hit.id end as person_id, min(hit.rn) as rn
        from hit left join household_members m on m.tenant_id = ${t} and m.contact_id = hit.id
        group by 1, 2 order by 3 limit ${LOOKUP_ENTRIES}
      ), people as (
        select e.rn, e.household_id, m.contact_id as id, m.role, m.position
        from entries e join household_members m on m.tenant_id = ${t} and m.household_id = e.household_id
        union all
        select e.rn, null, e.person_id, null, 0 from entries e where e.household_id is null
      )
      select x.rn, x.household_id, h.name as household_name, x.id, p.first_name, p.last_name, x.role,
        case when p.date_of_birth <= tz.today then extract(year from age(tz.today, p.date_of_birth))::int end as age,
        (select count(*) from hit) as hits
      from people x
        join contacts c on c.tenant_id = ${t} and c.id = x.id
        join persons p on p.tenant_id = ${t} and p.contact_id = x.id
        left join households h on h.tenant_id = ${t} and h.id = x.household_id
        cross join (select (now() at time zone tn.time_zone)::date as today from tenants tn where tn.id = ${t}) tz
      where ${reachablePerson(t, 'c', 'p')}
      order by x.rn, x.position, x.id`),
  );
}
