import { sql } from 'drizzle-orm';
import type { Db } from '../../db/client.js';
import type { FieldChanges } from '../../changes/recorder.js';
import { scrubData, scrubFieldChanges } from './audit-scrub.js';
import { detachDependents, ident, rowsOf, type ContactLink } from './contact-links.js';

/** Deleted outright on erase: the person's own data (contract: emails … requests; memberships detached = removed). */
export const ERASE_DELETES = [
  'contact_emails.contact_id', 'contact_phones.contact_id', 'contact_addresses.contact_id', 'contact_occasions.contact_id',
  'contact_identifications.contact_id', 'contact_relationships.contact_id', 'contact_relationships.related_contact_id',
  'contact_requests.contact_id', 'group_memberships.contact_id', 'group_membership_requests.contact_id',
];

/**
 * Personal values on rows erase keeps (detached or left on the anonymised contact): what a payer or
 * a delivery wrote down about the person. Applied where the table has the column.
 */
const PERSONAL_COLUMNS: Record<string, Record<string, string>> = {
  contributions: { payer_name: 'NULL', payer_email: 'NULL', payer_phone: 'NULL' },
  message_deliveries: { email: `'[erased]'` },
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
      date_of_birth = NULL, occupation = NULL WHERE tenant_id = ${tenantId} AND contact_id = ${contactId}`);
  await tx.execute(sql`UPDATE companies SET name = 'Erased', industry = NULL, website = NULL WHERE tenant_id = ${tenantId} AND contact_id = ${contactId}`);
  await tx.execute(sql`UPDATE contacts SET email_opt_out = true, updated_at = now() WHERE tenant_id = ${tenantId} AND id = ${contactId}`);
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
