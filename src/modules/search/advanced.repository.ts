import { sql, type SQL } from 'drizzle-orm';
import type { Db } from '../../db/client.js';
import type { ContactSort } from './search.schemas.js';

/**
 * Advanced contact search statements. `predicate` comes from compileCriteria (parameterised
 * fragments over "contacts" and the left-joined "persons").
 */

export interface ContactRow {
  id: number | string;
  category: 'Person' | 'Company';
  status: string;
  first_name: string | null;
  last_name: string | null;
  gender: string | null;
  company_name: string | null;
  emails: { value: string; isPrimary: boolean }[];
  phones: { value: string; isPrimary: boolean }[];
  total: number | string;
}

const ORDER: Record<ContactSort, SQL> = {
  lastName: sql`"contacts"."sort_last", "contacts"."sort_first", "contacts"."id"`,
  '-lastName': sql`"contacts"."sort_last" desc, "contacts"."sort_first" desc, "contacts"."id" desc`,
  firstName: sql`"contacts"."sort_first", "contacts"."sort_last", "contacts"."id"`,
  '-firstName': sql`"contacts"."sort_first" desc, "contacts"."sort_last" desc, "contacts"."id" desc`,
  createdAt: sql`"contacts"."created_at", "contacts"."id"`,
  '-createdAt': sql`"contacts"."created_at" desc, "contacts"."id" desc`,
};

const FROM = sql`contacts as "contacts"
  left join persons as "persons" on "persons"."tenant_id" = "contacts"."tenant_id" and "persons"."contact_id" = "contacts"."id"`;

const owned = (table: string) => sql.raw(`(select coalesce(json_agg(json_build_object('value', x.value, 'isPrimary', x.is_primary) order by x.position, x.id), '[]'::json)
  from ${table} as x where x.tenant_id = "contacts"."tenant_id" and x.contact_id = "contacts"."id")`);

const rowsOf = <T>(result: unknown) => (result as { rows: T[] }).rows;

/**
 * One page of matching contacts in the contacts list item shape, with the count of all matches
 * (a window count over the matches, computed in the same statement). The page's ids are chosen
 * first; names and JSON arrays are computed for those rows only.
 */
export async function searchContactPage(tx: Db, tenantId: number, predicate: SQL, sort: ContactSort, limit: number, offset: number) {
  const order = ORDER[sort];
  const rows = rowsOf<ContactRow>(await tx.execute(sql`
    with page as (
      select "contacts"."id", (count(*) over ())::int as total
      from ${FROM}
      where "contacts"."tenant_id" = ${tenantId} and ${predicate}
      order by ${order}
      limit ${limit} offset ${offset}
    )
    select "contacts"."id", "contacts"."category", "contacts"."status", "persons"."first_name", "persons"."last_name", "persons"."gender",
      co.name as company_name, ${owned('contact_emails')} as emails, ${owned('contact_phones')} as phones, page.total
    from page
    join ${FROM} on "contacts"."tenant_id" = ${tenantId} and "contacts"."id" = page.id
    left join companies co on co.tenant_id = "contacts"."tenant_id" and co.contact_id = "contacts"."id"
    order by ${order}`));
  if (rows.length > 0 || offset === 0) return { rows, total: rows.length > 0 ? Number(rows[0].total) : 0 };
  // A page past the end: the true total all the same.
  const [{ total }] = await countMatches(tx, tenantId, [predicate]);
  return { rows, total };
}

/** How many contacts each predicate matches, all in one statement. */
export async function countMatches(tx: Db, tenantId: number, predicates: SQL[]): Promise<{ total: number }[]> {
  if (predicates.length === 0) return [];
  const columns = predicates.map(
    (p, i) => sql`(select count(*) from ${FROM} where "contacts"."tenant_id" = ${tenantId} and ${p})::int as ${sql.raw(`c${i}`)}`,
  );
  const [row] = rowsOf<Record<string, number | string>>(await tx.execute(sql`select ${sql.join(columns, sql`, `)}`));
  return predicates.map((_, i) => ({ total: Number(row[`c${i}`]) }));
}

/** The matching contacts' ids as a subquery (for another module's statement). */
export function contactIdsSql(tenantId: number, predicate: SQL): SQL {
  return sql`(select "contacts"."id" from ${FROM} where "contacts"."tenant_id" = ${tenantId} and ${predicate})`;
}
