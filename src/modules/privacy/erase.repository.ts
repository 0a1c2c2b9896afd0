import { sql } from 'drizzle-orm';
import type { Db } from '../../db/client.js';
import type { FieldChanges } from '../../changes/recorder.js';
import { ERASED_VALUE, scrubData, scrubFieldChanges } from './audit-scrub.js';
import { detachDependents, ident, rowsOf, type ContactLink } from './contact-links.js';

/** Deleted outright on erase: the person's own data (contract: emails … requests; memberships detached = removed). */
export const ERASE_DELETES = [
  'contact_emails.contact_id', 'contact_phones.contact_id', 'contact_addresses.contact_id', 'contact_occasions.contact_id',
  'contact_identifications.contact_id', 'contact_relationships.contact_id', 'contact_relationships.related_contact_id',
  'contact_requests.contact_id', 'group_memberships.contact_id', 'group_membership_requests.contact_id',
  // Derived from the person: the absence alerts already sent about them, and when they first came
  // (their attendance stays, unlinked, as counts).
  'attendance_absence_alerts.contact_id', 'contact_first_visits.contact_id',
];

/**
 * Personal values on rows erase keeps (detached or left on the anonymised contact): what a payer or
 * a delivery wrote down about the person. Applied where the table has the column.
 */
const PERSONAL_COLUMNS: Record<string, Record<string, string>> = {
  contributions: { payer_name: 'NULL', payer_email: 'NULL', payer_phone: 'NULL' },
  // A delivery still queued to the person is not sent (to no address): it fails with the reason.
  message_deliveries: {
    email: `'[erased]'`,
    status: `CASE WHEN status = 'Queued' THEN 'Failed' ELSE status END`,
    error: `CASE WHEN status = 'Queued' THEN 'Contact erased' ELSE error END`,
  },
};

/** Handled by name, not by the generic rule: the profile rows (anonymised) and the user account (disabled). */
const ERASE_SPECIAL = new Set(['persons.contact_id', 'companies.contact_id', 'users.contact_id']);

export interface ContactLock {
  id: number;
  category: 'Person' | 'Company';
}

/** The contacts among `ids`, locked in id order (two merges or erasures of the same rows queue up, never deadlock). */
export async function lockContacts(tx: Db, tenantId: number, ids: number[]): Promise<ContactLock[]> {
  if (ids.length === 0) return [];
  const rows = rowsOf<{ id: string | number; category: ContactLock['category'] }>(
    await tx.execute(sql`SELECT id, category FROM contacts WHERE tenant_id = ${tenantId}
      AND id IN (${sql.join(ids.map((id) => sql`${id}`), sql`, `)}) ORDER BY id FOR UPDATE`),
  );
  return rows.map((r) => ({ id: Number(r.id), category: r.category }));
}

export interface LinkedUser {
  id: number;
  contactId: number;
  username: string;
  email: string | null;
  status: string;
}

export async function linkedUsers(tx: Db, tenantId: number, contactIds: number[]): Promise<LinkedUser[]> {
  if (contactIds.length === 0) return [];
  const rows = rowsOf<{ id: string | number; contact_id: string | number; username: string; email: string | null; status: string }>(
    await tx.execute(sql`SELECT id, contact_id, username, email, status FROM users WHERE tenant_id = ${tenantId}
      AND contact_id IN (${sql.join(contactIds.map((id) => sql`${id}`), sql`, `)}) ORDER BY id FOR UPDATE`),
  );
  return rows.map((r) => ({ id: Number(r.id), contactId: Number(r.contact_id), username: r.username, email: r.email, status: r.status }));
}

/**
 * Removes the person from everything the tenant holds, in the caller's transaction: owned rows and
 * memberships deleted; every other link (tasks, contributions … whatever tables exist) detached
 * where its column may be null, and otherwise left on the anonymised contact (attendance records,
 * registrations, activity participants: counts without a person). Returns what was detached and
 * what stays on the anonymised record, by section.
 */
export async function eraseContactData(tx: Db, tenantId: number, contactId: number, links: ContactLink[]) {
  const detached: string[] = [];
  const kept: string[] = [];
  for (const link of links) {
    const key = `${link.table}.${link.column}`;
    if (ERASE_SPECIAL.has(key)) continue;
    const where = `tenant_id = ${tenantId} AND ${ident(link.column)} = ${contactId}`;
    if (ERASE_DELETES.includes(key)) {
      await detachDependents(tx, tenantId, link, `x.${ident(link.column)} = ${contactId}`);
      await tx.execute(sql.raw(`DELETE FROM ${ident(link.table)} WHERE ${where}`));
      continue;
    }
    const personal = Object.entries(PERSONAL_COLUMNS[link.table] ?? {}).filter(([column]) => link.columns.includes(column));
    const sets = [...personal.map(([column, value]) => `${ident(column)} = ${value}`), ...(link.notNull ? [] : [`${ident(link.column)} = NULL`])];
    if (sets.length) await tx.execute(sql.raw(`UPDATE ${ident(link.table)} SET ${sets.join(', ')} WHERE ${where}`));
    (link.notNull ? kept : detached).push(key);
  }
  await tx.execute(sql`UPDATE persons SET first_name = 'Erased', last_name = 'Erased', middle_name = NULL, gender = NULL, civil_status = NULL,
      date_of_birth = NULL, occupation = NULL, checkin_note = NULL WHERE tenant_id = ${tenantId} AND contact_id = ${contactId}`);
  await tx.execute(sql`UPDATE companies SET name = 'Erased', industry = NULL, website = NULL WHERE tenant_id = ${tenantId} AND contact_id = ${contactId}`);
  await tx.execute(sql`UPDATE contacts SET email_opt_out = true, updated_at = now() WHERE tenant_id = ${tenantId} AND id = ${contactId}`);
  // Notifications about the person (derived from their changes) go; others are scrubbed by eraseFreeText.
  await tx.execute(sql`DELETE FROM notifications WHERE tenant_id = ${tenantId} AND entity_type = 'contact' AND entity_id = ${contactId}`);
  return { detached, kept };
}

/** The account can no longer sign in, and its identifying values go: username replaced, email and password removed, sessions ended. */
export async function disableErasedUser(tx: Db, tenantId: number, userId: number): Promise<void> {
  await tx.execute(sql`UPDATE users SET status = 'Disabled', username = ${`erased-${userId}`}, email = NULL, password_hash = NULL, updated_at = now()
    WHERE tenant_id = ${tenantId} AND id = ${userId}`);
  await tx.execute(sql`UPDATE refresh_tokens SET revoked_at = now() WHERE tenant_id = ${tenantId} AND user_id = ${userId} AND revoked_at IS NULL`);
  await tx.execute(sql`DELETE FROM password_reset_tokens WHERE tenant_id = ${tenantId} AND user_id = ${userId}`);
}

/**
 * The audit keeps every change about the person (its type, entity, actor, time, ids and statuses)
 * but not their values: names, emails, phones, addresses, notes… in `changes` and `data` become
 * "[erased]". Covers the contact's own changes, every change carrying data.contactId or
 * data.relatedContactId of it, and the linked user's changes. One read, one write.
 */
export async function scrubAudit(tx: Db, tenantId: number, contactId: number, userId: number | undefined): Promise<number> {
  const rows = rowsOf<{ id: string | number; changes: unknown; data: unknown }>(
    await tx.execute(sql`SELECT id, changes, data FROM changes WHERE tenant_id = ${tenantId} AND (
        (entity_type = 'contact' AND entity_id = ${contactId})
        OR data->'contactId' = to_jsonb(${contactId}::bigint)
        OR (data ? 'relatedContactId' AND data->'relatedContactId' = to_jsonb(${contactId}::bigint))
        ${userId !== undefined ? sql`OR (entity_type = 'user' AND entity_id = ${userId})` : sql``})
      ORDER BY id FOR UPDATE`),
  );
  if (rows.length === 0) return 0;
  const json = (v: unknown) => (typeof v === 'string' ? JSON.parse(v) : v);
  const scrubbed = rows.map((r) => ({
    id: Number(r.id),
    changes: scrubFieldChanges(json(r.changes) as FieldChanges | null),
    data: scrubData(json(r.data) as Record<string, unknown>),
  }));
  await tx.execute(sql`UPDATE changes AS c SET changes = s.changes, data = s.data
    FROM jsonb_to_recordset(${JSON.stringify(scrubbed)}::jsonb) AS s(id bigint, changes jsonb, data jsonb)
    WHERE c.tenant_id = ${tenantId} AND c.id = s.id`);
  return rows.length;
}

/**
 * Free text, written by people or composed by the system from the person (task titles "Pray with …",
 * "Welcome call: …", notification bodies, queued e-mails, comments, notes, gift references, pledge
 * campaigns, message bodies, saved-list criteria, the audit's values, error texts): wherever one of
 * the person's values occurs, it becomes "[erased]". Tenant-wide, not only on the person's rows: a
 * comment on someone else's task may name them. jsonb columns are rewritten in their string values
 * only (erase_jsonb_text, migration 0036). Names of groups and events are left alone (identifiers
 * people navigate by, not notes).
 */
const FREE_TEXT: Record<string, { text?: string[]; jsonb?: string[] }> = {
  attendance_sessions: { text: ['notes'] },
  changes: { jsonb: ['changes', 'data'] },
  contact_occasions: { text: ['details'] },
  contact_requests: { text: ['description'] },
  contribution_refunds: { text: ['reason'] },
  contributions: { text: ['notes', 'reference', 'payer_name', 'payer_email', 'payer_phone'] },
  event_activities: { text: ['notes'] },
  events: { text: ['description'], jsonb: ['meta_data'] },
  groups: { text: ['details'], jsonb: ['meta_data'] },
  jobs: { text: ['last_error'], jsonb: ['payload'] },
  message_deliveries: { text: ['email', 'error'] },
  message_templates: { text: ['subject', 'body'] },
  messages: { text: ['subject', 'body'], jsonb: ['audience'] },
  notifications: { text: ['title', 'body'] },
  pledges: { text: ['campaign'] },
  report_submissions: { jsonb: ['values'] },
  saved_lists: { text: ['name'], jsonb: ['criteria'] },
  task_comments: { text: ['body'] },
  tasks: { text: ['title', 'description'] },
  webhook_deliveries: { text: ['last_error'] },
};

/** What identifies the person in text: values written as they are, and phone numbers as digit runs. */
export interface ErasedValues {
  texts: string[];
  phoneDigits: string[];
}

/**
 * Read before anything is erased: the full name as people write it ("First Last", "First Middle
 * Last", "Last, First"), each name part no other person of the tenant bears (a shared "John" stays in
 * other people's notes), a company's name, every email and phone number (their own, the linked
 * user's, what they wrote on their gifts) and the name they gave on their gifts. Nothing once the
 * person is erased.
 */
export async function erasedValues(tx: Db, tenantId: number, contactId: number): Promise<ErasedValues> {
  const [row] = rowsOf<{ texts: string[] | null; phones: string[] | null }>(
    await tx.execute(sql`
      WITH p AS (
        SELECT nullif(btrim(first_name), '') AS f, nullif(btrim(middle_name), '') AS m, nullif(btrim(last_name), '') AS l
        FROM persons WHERE tenant_id = ${tenantId} AND contact_id = ${contactId} AND NOT (first_name = 'Erased' AND last_name = 'Erased')
      ), own AS (
        SELECT f || ' ' || l AS v FROM p
        UNION SELECT f || ' ' || m || ' ' || l FROM p
        UNION SELECT l || ', ' || f FROM p
        UNION SELECT part FROM p, unnest(ARRAY[p.f, p.m, p.l]) AS part
          WHERE NOT EXISTS (SELECT 1 FROM persons o WHERE o.tenant_id = ${tenantId} AND o.contact_id <> ${contactId}
            AND lower(part) IN (lower(o.first_name), lower(o.last_name), lower(o.middle_name)))
        UNION SELECT name FROM companies WHERE tenant_id = ${tenantId} AND contact_id = ${contactId} AND name <> 'Erased'
        UNION SELECT value FROM contact_emails WHERE tenant_id = ${tenantId} AND contact_id = ${contactId}
        UNION SELECT email FROM users WHERE tenant_id = ${tenantId} AND contact_id = ${contactId}
        UNION SELECT unnest(ARRAY[payer_name, payer_email]) FROM contributions WHERE tenant_id = ${tenantId} AND contact_id = ${contactId}
      ), phones AS (
        SELECT value AS v FROM contact_phones WHERE tenant_id = ${tenantId} AND contact_id = ${contactId}
        UNION SELECT payer_phone FROM contributions WHERE tenant_id = ${tenantId} AND contact_id = ${contactId}
      )
      SELECT (SELECT array_agg(v) FROM own WHERE length(btrim(v)) >= 2) AS texts, (SELECT array_agg(v) FROM phones WHERE v IS NOT NULL) AS phones`),
  );
  const phones = row.phones ?? [];
  return {
    texts: [...new Set([...(row.texts ?? []), ...phones])],
    phoneDigits: [...new Set(phones.map((p) => p.replace(/\D/g, '')).filter((d) => d.length >= 7))],
  };
}

const escapeRegex = (value: string) => value.trim().replace(/[.*+?^${}()|[\]\\]/g, '\\$&').replace(/\s+/g, '\\s+');

/**
 * One alternation of the values, longest first, each a whole word (no letter or digit right before
 * or after it): a phone number however it is punctuated ("+256 772 123456", "256-772-123-456").
 * Written once, for PostgreSQL (`sql`, used with ~* and the 'gi' flags) and JavaScript (`js`).
 */
export function erasurePattern({ texts, phoneDigits }: ErasedValues): { sql: string; js: RegExp } | undefined {
  const alternatives = [...texts.map(escapeRegex), ...phoneDigits.map((d) => d.split('').join('[\\s().-]{0,2}'))]
    .filter(Boolean)
    .sort((a, b) => b.length - a.length || a.localeCompare(b));
  if (alternatives.length === 0) return undefined;
  const any = alternatives.join('|');
  return {
    sql: `(?<![[:alnum:]])(?:${any})(?![[:alnum:]])`,
    js: new RegExp(`(?<![\\p{L}\\p{N}])(?:${any})(?![\\p{L}\\p{N}])`, 'iu'),
  };
}

/** Replaces the pattern in every FREE_TEXT column that exists: one UPDATE per table, of the rows that hold it. */
export async function eraseFreeText(tx: Db, tenantId: number, pattern: string): Promise<void> {
  const wanted = Object.entries(FREE_TEXT).flatMap(([table, c]) => [...(c.text ?? []), ...(c.jsonb ?? [])].map((column) => `${table}.${column}`));
  const present = new Set(rowsOf<{ c: string }>(await tx.execute(sql`
    SELECT cl.relname || '.' || a.attname AS c FROM pg_attribute a
    JOIN pg_class cl ON cl.oid = a.attrelid AND cl.relkind = 'r'
    JOIN pg_namespace ns ON ns.oid = cl.relnamespace AND ns.nspname = 'public'
    WHERE a.attnum > 0 AND NOT a.attisdropped AND cl.relname || '.' || a.attname IN (${sql.join(wanted.map((w) => sql`${w}`), sql`, `)})`)).map((r) => r.c));
  const p = sql`${pattern}::text`;
  const erased = sql`${ERASED_VALUE}::text`;
  for (const [table, { text = [], jsonb = [] }] of Object.entries(FREE_TEXT)) {
    const texts = text.filter((c) => present.has(`${table}.${c}`)).map((c) => sql.raw(ident(c)));
    const docs = jsonb.filter((c) => present.has(`${table}.${c}`)).map((c) => sql.raw(ident(c)));
    if (texts.length + docs.length === 0) continue;
    const sets = [
      ...texts.map((c) => sql`${c} = regexp_replace(${c}, ${p}, ${erased}, 'gi')`),
      ...docs.map((c) => sql`${c} = CASE WHEN ${c}::text ~* ${p} THEN erase_jsonb_text(${c}, ${p}, ${erased}) ELSE ${c} END`),
    ];
    const holds = [...texts.map((c) => sql`${c} ~* ${p}`), ...docs.map((c) => sql`${c}::text ~* ${p}`)];
    await tx.execute(sql`UPDATE ${sql.raw(ident(table))} SET ${sql.join(sets, sql`, `)} WHERE tenant_id = ${tenantId} AND (${sql.join(holds, sql` OR `)})`);
  }
}
