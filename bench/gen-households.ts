import { sql } from 'drizzle-orm';
import type { Db } from '../src/db/client.js';

/**
 * Households (modules-contract §8) for `share` of the tenant's people (bench/sizes.ts: 0.6, as churches' data has them), in ONE statement
 * (INSERT … SELECT with data-modifying CTEs), as the other generators: deterministic (a hash of the
 * contact id picks the people), so a size loads the same households every time. The chosen people,
 * in contact id order, fill households by a repeating pattern of sizes 1, 2, 2, 3, 4, 5 (17 people
 * in 6 households: about 2.8 a household, the couples and families churches have). In each, the
 * oldest is the Head (and the primary contact), the next oldest the Spouse when an adult, those under
 * 18 Child, anyone else Other; named by the default rule ("<the Head's last name> household"); a
 * third give together. The key `bench-<n>` is the household's import key (the import's column).
 * Returns how many households and members were made.
 */
export async function insertHouseholds(tx: Db, tenantId: number, share: number): Promise<{ households: number; members: number }> {
  const t = tenantId;
  const perMille = Math.round(share * 1000);
  const ranked = sql`
    with chosen as (
      select p.contact_id, p.last_name, p.date_of_birth, row_number() over (order by p.contact_id) - 1 as k
      from persons p join contacts c on c.tenant_id = p.tenant_id and c.id = p.contact_id
      where p.tenant_id = ${t} and c.category = 'Person' and abs(hashint8(p.contact_id * 7 + 3)) % 1000 < ${perMille}
    ), placed as (
      select contact_id, last_name, date_of_birth,
        (k / 17) * 6 + case when k % 17 < 1 then 0 when k % 17 < 3 then 1 when k % 17 < 5 then 2 when k % 17 < 8 then 3 when k % 17 < 12 then 4 else 5 end as h,
        coalesce(extract(year from age(date '2026-01-01', date_of_birth))::int, 30) as age
      from chosen
    ), ranked as (
      select *, row_number() over (partition by h order by date_of_birth nulls last, contact_id) as r from placed
    )`;
  // Two statements: the members join the households by their key's unique index. (One statement joined
  // the INSERT's RETURNING, which the planner takes for one row: a nested loop over every pair, 100 s at
  // large and quadratic beyond.)
  const made = await tx.execute(sql`${ranked}
    insert into households (tenant_id, name, giving_together, primary_contact_id, import_key)
    select ${t}::bigint, last_name || ' household', h % 3 = 0, contact_id, 'bench-' || h from ranked where r = 1`);
  const joined = await tx.execute(sql`${ranked}
    insert into household_members (tenant_id, household_id, contact_id, role, position)
    select ${t}::bigint, hh.id, ranked.contact_id,
      case when r = 1 then 'Head' when r = 2 and age >= 18 then 'Spouse' when age < 18 then 'Child' else 'Other' end, r
    from ranked join households hh on hh.tenant_id = ${t} and hh.import_key = 'bench-' || ranked.h`);
  const count = (r: unknown) => Number((r as { rowCount?: number; affectedRows?: number }).rowCount ?? (r as { affectedRows?: number }).affectedRows ?? 0);
  return { households: count(made), members: count(joined) };
}
