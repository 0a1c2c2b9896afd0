import { sql } from 'drizzle-orm';
import type { Db } from '../../db/client.js';
import { rowsOf } from './contact-links.js';

/**
 * Possible duplicates as pairs of contacts sharing a key, each key a self-join on equal values of an
 * index (migration 0014): lower(email), phone digits (6 or more), normalised full name (persons) or
 * name (companies). Every join walks the tenant's key index once (equal keys meet), never all pairs
 * of contacts. The expressions here must stay identical to the indexes' expressions.
 */
export const PERSON_NAME_KEY = `lower(btrim(regexp_replace(x.first_name || ' ' || x.last_name, '\\s+', ' ', 'g')))`;
export const COMPANY_NAME_KEY = `lower(btrim(regexp_replace(x.name, '\\s+', ' ', 'g')))`;

const on = (expr: string, alias: string) => expr.replaceAll('x.', `${alias}.`);

/** A contact erased by POST /erase keeps the name "Erased": never offered as anyone's duplicate. */
const NOT_ERASED = `NOT EXISTS (SELECT 1 FROM changes ch WHERE ch.tenant_id = a.tenant_id AND ch.entity_type = 'contact'
  AND ch.entity_id = a.contact_id AND ch.type = 'contact.erased')`;

function keyPairs(tenantId: number): string {
  const t = Number(tenantId);
  return `
    SELECT a.contact_id AS a, b.contact_id AS b, 'email' AS reason FROM contact_emails a
      JOIN contact_emails b ON b.tenant_id = a.tenant_id AND lower(b.value) = lower(a.value) AND b.contact_id > a.contact_id
      WHERE a.tenant_id = ${t} AND b.tenant_id = ${t}
    UNION
    SELECT a.contact_id, b.contact_id, 'phone' FROM contact_phones a
      JOIN contact_phones b ON b.tenant_id = a.tenant_id AND b.digits = a.digits AND b.contact_id > a.contact_id
      WHERE a.tenant_id = ${t} AND b.tenant_id = ${t} AND length(a.digits) >= 6 AND length(b.digits) >= 6
    UNION
    SELECT a.contact_id, b.contact_id, 'name' FROM persons a
      JOIN persons b ON b.tenant_id = a.tenant_id AND ${on(PERSON_NAME_KEY, 'b')} = ${on(PERSON_NAME_KEY, 'a')} AND b.contact_id > a.contact_id
      WHERE a.tenant_id = ${t} AND b.tenant_id = ${t} AND ${NOT_ERASED}
    UNION
    SELECT a.contact_id, b.contact_id, 'name' FROM companies a
      JOIN companies b ON b.tenant_id = a.tenant_id AND ${on(COMPANY_NAME_KEY, 'b')} = ${on(COMPANY_NAME_KEY, 'a')} AND b.contact_id > a.contact_id
      WHERE a.tenant_id = ${t} AND b.tenant_id = ${t} AND ${NOT_ERASED}`;
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
          least(100, greatest(max(CASE k.reason WHEN 'email' THEN 90 WHEN 'phone' THEN 80 ELSE 60 END)) + 5 * (count(*)::int - 1))::int AS points,
          array_agg(k.reason ORDER BY k.reason) AS reasons
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
