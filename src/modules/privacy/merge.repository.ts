import { sql } from 'drizzle-orm';
import type { Db } from '../../db/client.js';
import { detachDependents, ident, type ContactLink } from './contact-links.js';

/** The profile rows of a source are its identity, not data to carry: they go with the source. */
const NEVER_MOVED = new Set(['persons.contact_id', 'companies.contact_id']);

/**
 * Values that make two owned rows "the same" although no unique index says so (a contact may hold
 * the same email twice as far as the schema cares, but a merge must not make it do so). Written over
 * the alias `$`. Unique indexes of every linked table are read from the catalog on top of these.
 */
const NATURAL_KEYS: Record<string, string[][]> = {
  'contact_emails.contact_id': [['lower($.value)']],
  'contact_phones.contact_id': [["CASE WHEN $.digits = '' THEN lower($.value) ELSE $.digits END"]],
  'contact_addresses.contact_id': [["coalesce(lower($.street), '')", "coalesce(lower($.city), '')", "coalesce(lower($.country), '')"]],
  'contact_occasions.contact_id': [['$.type', "coalesce($.date::text, '')"]],
  'contact_identifications.contact_id': [['$.type', 'lower($.value)']],
};

/** Owned arrays with one primary entry: a source's entries join the survivor's after them, not primary. */
const WITH_PRIMARY = ['contact_emails', 'contact_phones', 'contact_addresses'];

interface KeySet {
  exprs: string[];
  predicate: string | null;
}

function keySets(link: ContactLink): KeySet[] {
  const fromCatalog = link.uniqueKeys.map((k) => ({ exprs: k.others.map((c) => `$.${ident(c)}`), predicate: k.predicate }));
  const natural = (NATURAL_KEYS[`${link.table}.${link.column}`] ?? []).map((exprs) => ({ exprs, predicate: null }));
  return [...fromCatalog, ...natural];
}

const list = (ids: number[]) => ids.map((id) => String(Number(id))).join(', ');

/**
 * One statement per link: the sources' rows move to the survivor unless the survivor (or an earlier
 * row of another source) already holds a row with the same key, for every unique index over the link
 * column (partial ones under their predicate) and the natural keys above. What does not move stays
 * on its source and goes with it.
 */
function moveStatement(link: ContactLink, tenantId: number, survivorId: number, sourceIds: number[]): string {
  const table = ident(link.table);
  const column = ident(link.column);
  const conflicts = keySets(link).map((key) => {
    const equal = key.exprs.map((e) => `${e.replaceAll('$.', 'o.')} = ${e.replaceAll('$.', 't.')}`);
    // `=` as a unique index compares: null keys never collide.
    // Unqualified names in a predicate mean o inside the subquery and t outside it.
    const exists = `EXISTS (SELECT 1 FROM ${table} AS o WHERE o.tenant_id = t.tenant_id
        AND (o.${column} = ${survivorId} OR (o.${column} IN (${list(sourceIds)}) AND o.ctid < t.ctid))
        ${equal.map((e) => `AND ${e}`).join(' ')} ${key.predicate ? `AND (${key.predicate})` : ''})`;
    return key.predicate ? `AND NOT ((${key.predicate}) AND ${exists})` : `AND NOT ${exists}`;
  });
  return `UPDATE ${table} AS t SET ${column} = ${survivorId}
    WHERE t.tenant_id = ${tenantId} AND t.${column} IN (${list(sourceIds)}) ${conflicts.join('\n')}`;
}

/**
 * Moves everything linked to the sources onto the survivor, then deletes the sources (their rows
 * that did not move go with them by cascade). Rows linking merged contacts to each other
 * (a relationship between the survivor and a source) are dropped first: they would become links of
 * the survivor to itself.
 */
export async function mergeInto(tx: Db, tenantId: number, survivorId: number, sourceIds: number[], links: ContactLink[]): Promise<void> {
  const all = [survivorId, ...sourceIds];
  const byTable = new Map<string, ContactLink[]>();
  for (const link of links) byTable.set(link.table, [...(byTable.get(link.table) ?? []), link]);
  for (const [table, tableLinks] of byTable) {
    if (tableLinks.length < 2) continue;
    await tx.execute(sql.raw(`DELETE FROM ${ident(table)} WHERE tenant_id = ${tenantId}
      AND ${tableLinks.map((l) => `${ident(l.column)} IN (${list(all)})`).join(' AND ')}`));
  }
  for (const table of WITH_PRIMARY) {
    if (!byTable.has(table)) continue;
    await tx.execute(sql.raw(`UPDATE ${ident(table)} SET is_primary = false,
        position = position + 1 + coalesce((SELECT max(position) FROM ${ident(table)} WHERE tenant_id = ${tenantId} AND contact_id = ${survivorId}), 0)
      WHERE tenant_id = ${tenantId} AND contact_id IN (${list(sourceIds)})`));
  }
  for (const link of links) {
    if (NEVER_MOVED.has(`${link.table}.${link.column}`)) continue;
    await tx.execute(sql.raw(moveStatement(link, tenantId, survivorId, sourceIds)));
  }
  // What stayed on a source goes with it; nullable references to those rows let go first.
  for (const link of links) await detachDependents(tx, tenantId, link, `x.${ident(link.column)} IN (${list(sourceIds)})`);
  for (const table of WITH_PRIMARY) {
    if (!byTable.has(table)) continue;
    await tx.execute(sql.raw(`UPDATE ${ident(table)} SET is_primary = true WHERE tenant_id = ${tenantId} AND id = (
        SELECT id FROM ${ident(table)} WHERE tenant_id = ${tenantId} AND contact_id = ${survivorId} ORDER BY position, id LIMIT 1)
      AND NOT EXISTS (SELECT 1 FROM ${ident(table)} WHERE tenant_id = ${tenantId} AND contact_id = ${survivorId} AND is_primary)`));
  }
  await tx.execute(sql.raw(`DELETE FROM contacts WHERE tenant_id = ${tenantId} AND id IN (${list(sourceIds)})`));
  await tx.execute(sql.raw(`UPDATE contacts SET updated_at = now() WHERE tenant_id = ${tenantId} AND id = ${survivorId}`));
}
