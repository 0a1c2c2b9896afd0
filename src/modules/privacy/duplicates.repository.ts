import { sql } from 'drizzle-orm';
import type { Db } from '../../db/client.js';
import { rowsOf } from './contact-links.js';

/**
 * Possible duplicates as pairs of contacts sharing a key: lower(email), phone digits (6 or more),
 * normalised full name (persons: trimmed, case-folded, runs of up to four spaces made one) or name
 * (companies). Each key is grouped over its index of the tenant (migration 0014: (tenant, key,
 * contact), read in key order, the key computed once per row), and only the groups of two or more
 * contacts make pairs: a self-join on equal keys inside each group, never all pairs of contacts.
 * The expressions here must stay identical to the indexes' expressions.
 */
export const PERSON_NAME_KEY = `lower(replace(replace(btrim(x.first_name) || ' ' || btrim(x.last_name), '  ', ' '), '  ', ' '))`;
export const COMPANY_NAME_KEY = `lower(replace(replace(btrim(x.name), '  ', ' '), '  ', ' '))`;

/** A contact erased by POST /erase keeps the name "Erased": never offered as anyone's duplicate. */
const NOT_ERASED = `NOT EXISTS (SELECT 1 FROM changes ch WHERE ch.tenant_id = x.tenant_id AND ch.entity_type = 'contact'
  AND ch.entity_id = x.contact_id AND ch.type = 'contact.erased')`;

function keyGroup(reason: string, table: string, key: string, where: string): string {
  return `
    SELECT a.id AS a, b.id AS b, '${reason}' AS reason
    FROM (SELECT array_agg(x.contact_id) AS ids FROM ${table} AS x WHERE ${where}
          GROUP BY ${key} HAVING min(x.contact_id) <> max(x.contact_id)) AS g
    CROSS JOIN LATERAL unnest(g.ids) AS a(id) JOIN LATERAL unnest(g.ids) AS b(id) ON b.id > a.id`;
}

/** Exported for the test that checks each key's expression is the one its index holds. */
export function keyPairs(tenantId: number): string {
  const t = `x.tenant_id = ${Number(tenantId)}`;
  return [
    keyGroup('email', 'contact_emails', 'lower(x.value)', t),
    keyGroup('phone', 'contact_phones', 'x.digits', `${t} AND length(x.digits) >= 6`),
    keyGroup('name', 'persons', PERSON_NAME_KEY, `${t} AND ${NOT_ERASED}`),
    keyGroup('name', 'companies', COMPANY_NAME_KEY, `${t} AND ${NOT_ERASED}`),
  ].join('\n    UNION ALL');
}

export interface PairRow {
  a: number;
  b: number;
  reason: 'email' | 'phone' | 'name';
  /** Percent: 90 email, 80 phone, 60 name, +5 for each further shared key, at most 100. */
  points: number;
  reasons: string[];
}

/**
 * One page of pairs and the number of pairs, in one statement. A pair sharing several keys appears
 * once, under its strongest reason. Order: score descending, then the pair's ids.
 */
export async function duplicatePairs(tx: Db, tenantId: number, limit: number, offset: number): Promise<{ rows: PairRow[]; total: number }> {
  const rows = rowsOf<{ a: string | number | null; b: string | number | null; reason: PairRow['reason'] | null; points: number | null; reasons: string[] | string | null; total: string | number }>(
    await tx.execute(sql.raw(`
      WITH pairs AS (
        SELECT k.a, k.b,
          CASE WHEN bool_or(k.reason = 'email') THEN 'email' WHEN bool_or(k.reason = 'phone') THEN 'phone' ELSE 'name' END AS reason,
          least(100, max(CASE k.reason WHEN 'email' THEN 90 WHEN 'phone' THEN 80 ELSE 60 END) + 5 * (count(DISTINCT k.reason)::int - 1))::int AS points,
          array_agg(DISTINCT k.reason ORDER BY k.reason) AS reasons
        FROM (${keyPairs(tenantId)}) AS k
        GROUP BY k.a, k.b
      )
      SELECT p.a, p.b, p.reason, p.points, p.reasons, t.total
      FROM (SELECT count(*) AS total FROM pairs) AS t
      LEFT JOIN LATERAL (
        SELECT * FROM pairs ORDER BY points DESC, a, b LIMIT ${Number(limit)} OFFSET ${Number(offset)}
      ) AS p ON true`)),
  );
  const total = Number(rows[0]?.total ?? 0);
  return {
    total,
    rows: rows
      .filter((r) => r.a !== null)
      .map((r) => ({
        a: Number(r.a), b: Number(r.b), reason: r.reason!, points: Number(r.points),
        reasons: Array.isArray(r.reasons) ? r.reasons : String(r.reasons).replace(/^\{|\}$/g, '').split(','),
      })),
  };
}

export interface ListItemRow {
  id: number;
  category: 'Person' | 'Company';
  status: 'Active' | 'Inactive' | 'MovedAway' | 'TransferredToAnotherChurch' | 'Deceased';
  emailOptOut: boolean;
  person?: { firstName: string; lastName: string; gender: string | null };
  company?: { name: string };
  emails: { value: string; isPrimary: boolean }[];
  phones: { value: string; isPrimary: boolean }[];
}

/** Contacts as list items (the shape of GET /api/crm/contacts), for the given ids, in one statement. */
export async function contactListItems(tx: Db, tenantId: number, ids: number[]): Promise<Map<number, ListItemRow>> {
  if (ids.length === 0) return new Map();
  const rows = rowsOf<{ id: string | number; category: ListItemRow['category']; status: ListItemRow['status']; email_opt_out: boolean; first_name: string | null; last_name: string | null; gender: string | null; company_name: string | null; emails: unknown; phones: unknown }>(
    await tx.execute(sql`
      SELECT c.id, c.category, c.status, c.email_opt_out, p.first_name, p.last_name, p.gender, co.name AS company_name,
        (SELECT coalesce(json_agg(json_build_object('value', e.value, 'isPrimary', e.is_primary) ORDER BY e.position, e.id), '[]'::json)
           FROM contact_emails e WHERE e.tenant_id = c.tenant_id AND e.contact_id = c.id) AS emails,
        (SELECT coalesce(json_agg(json_build_object('value', f.value, 'isPrimary', f.is_primary) ORDER BY f.position, f.id), '[]'::json)
           FROM contact_phones f WHERE f.tenant_id = c.tenant_id AND f.contact_id = c.id) AS phones
      FROM contacts c
      LEFT JOIN persons p ON p.tenant_id = c.tenant_id AND p.contact_id = c.id
      LEFT JOIN companies co ON co.tenant_id = c.tenant_id AND co.contact_id = c.id
      WHERE c.tenant_id = ${tenantId} AND c.id IN (${sql.join(ids.map((id) => sql`${id}`), sql`, `)})`),
  );
  const json = (v: unknown) => (typeof v === 'string' ? JSON.parse(v) : v) as ListItemRow['emails'];
  return new Map(
    rows.map((r) => [
      Number(r.id),
      {
        id: Number(r.id),
        category: r.category,
        status: r.status,
        emailOptOut: r.email_opt_out,
        ...(r.category === 'Person' ? { person: { firstName: r.first_name ?? '', lastName: r.last_name ?? '', gender: r.gender } } : {}),
        ...(r.category === 'Company' ? { company: { name: r.company_name ?? '' } } : {}),
        emails: json(r.emails),
        phones: json(r.phones),
      },
    ]),
  );
}
