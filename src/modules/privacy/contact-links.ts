import { sql } from 'drizzle-orm';
import type { Db } from '../../db/client.js';

/**
 * Every column that points at a contact, read from the catalog: each foreign key
 * `(tenant_id, X) → contacts (tenant_id, id)` of a table in the public schema. Export, erase and merge
 * walk this list, so a module that adds a table referencing contacts (tasks, contributions, pledges,
 * check-ins …) is exported, detached and merged without a change here.
 */
export interface ContactLink {
  table: string;
  column: string;
  notNull: boolean;
  /** pg_constraint.confdeltype: a = no action, r = restrict, c = cascade, n = set null, d = set default. */
  onDelete: 'a' | 'r' | 'c' | 'n' | 'd';
  /** Unique indexes of the table that include `column`, as the other key columns (see UniqueKey). */
  uniqueKeys: UniqueKey[];
  /**
   * Columns of other tables pointing at this table's rows without a cascade (tasks.request_id →
   * contact_requests, tasks.card_id → pipeline_cards): set to null before such rows are deleted.
   */
  dependents: Dependent[];
  /** The table's columns (for the personal values erase clears on rows it keeps). */
  columns: string[];
}

export interface Dependent {
  table: string;
  column: string;
  notNull: boolean;
}

export interface UniqueKey {
  name: string;
  /** The key's columns other than tenant_id and the link column. */
  others: string[];
  /** A partial index's predicate, written over the table's unqualified column names. */
  predicate: string | null;
}

/** Identifiers come from the catalog, never from a request; quoted all the same. */
export const ident = (name: string) => `"${name.replace(/"/g, '""')}"`;

interface LinkRow {
  table: string;
  column: string;
  not_null: boolean;
  on_delete: ContactLink['onDelete'];
}

interface UniqueRow {
  table: string;
  name: string;
  columns: string[] | string;
  predicate: string | null;
  has_expressions: boolean;
}

async function readLinks(tx: Db): Promise<ContactLink[]> {
  const links = rowsOf<LinkRow>(
    await tx.execute(sql`
      SELECT cl.relname AS "table", a.attname AS "column", a.attnotnull AS not_null, c.confdeltype AS on_delete
      FROM pg_constraint c
      JOIN pg_class cl ON cl.oid = c.conrelid
      JOIN pg_namespace ns ON ns.oid = cl.relnamespace AND ns.nspname = 'public'
      JOIN pg_class target ON target.oid = c.confrelid AND target.relname = 'contacts' AND target.relnamespace = ns.oid
      JOIN pg_attribute ta ON ta.attrelid = c.conrelid AND ta.attnum = c.conkey[1] AND ta.attname = 'tenant_id'
      JOIN pg_attribute a ON a.attrelid = c.conrelid AND a.attnum = c.conkey[2]
      JOIN pg_attribute fa ON fa.attrelid = c.confrelid AND fa.attnum = c.confkey[1] AND fa.attname = 'tenant_id'
      JOIN pg_attribute fb ON fb.attrelid = c.confrelid AND fb.attnum = c.confkey[2] AND fb.attname = 'id'
      WHERE c.contype = 'f' AND cardinality(c.conkey) = 2
      ORDER BY cl.relname, a.attname`),
  );
  if (links.length === 0) return [];
  const tables = [...new Set(links.map((l) => l.table))];
  const uniques = rowsOf<UniqueRow>(
    await tx.execute(sql`
      SELECT cl.relname AS "table", ic.relname AS name,
        array(SELECT a.attname::text FROM unnest(i.indkey::int2[]) WITH ORDINALITY AS k(attnum, ord)
              JOIN pg_attribute a ON a.attrelid = i.indrelid AND a.attnum = k.attnum ORDER BY k.ord) AS columns,
        pg_get_expr(i.indpred, i.indrelid) AS predicate,
        (i.indexprs IS NOT NULL) AS has_expressions
      FROM pg_index i
      JOIN pg_class cl ON cl.oid = i.indrelid
      JOIN pg_class ic ON ic.oid = i.indexrelid
      JOIN pg_namespace ns ON ns.oid = cl.relnamespace AND ns.nspname = 'public'
      WHERE i.indisunique AND cl.relname IN (${sql.join(tables.map((t) => sql`${t}`), sql`, `)})
      ORDER BY ic.relname`),
  );
  const dependents = rowsOf<LinkRow & { target: string }>(
    await tx.execute(sql`
      SELECT cl.relname AS "table", a.attname AS "column", a.attnotnull AS not_null, c.confdeltype AS on_delete, target.relname AS target
      FROM pg_constraint c
      JOIN pg_class cl ON cl.oid = c.conrelid
      JOIN pg_namespace ns ON ns.oid = cl.relnamespace AND ns.nspname = 'public'
      JOIN pg_class target ON target.oid = c.confrelid AND target.relnamespace = ns.oid
      JOIN pg_attribute ta ON ta.attrelid = c.conrelid AND ta.attnum = c.conkey[1] AND ta.attname = 'tenant_id'
      JOIN pg_attribute a ON a.attrelid = c.conrelid AND a.attnum = c.conkey[2]
      JOIN pg_attribute fb ON fb.attrelid = c.confrelid AND fb.attnum = c.confkey[2] AND fb.attname = 'id'
      WHERE c.contype = 'f' AND cardinality(c.conkey) = 2 AND c.confdeltype IN ('a', 'r')
        AND target.relname IN (${sql.join(tables.filter((t) => t !== 'contacts').map((t) => sql`${t}`), sql`, `)})
      ORDER BY cl.relname, a.attname`),
  );
  const columns = rowsOf<{ table: string; column: string }>(
    await tx.execute(sql`
      SELECT cl.relname AS "table", a.attname AS "column" FROM pg_attribute a
      JOIN pg_class cl ON cl.oid = a.attrelid
      JOIN pg_namespace ns ON ns.oid = cl.relnamespace AND ns.nspname = 'public'
      WHERE a.attnum > 0 AND NOT a.attisdropped AND cl.relkind = 'r' AND cl.relname IN (${sql.join(tables.map((t) => sql`${t}`), sql`, `)})`),
  );
  return links.map((l) => ({
    table: l.table,
    column: l.column,
    notNull: l.not_null,
    onDelete: l.on_delete,
    uniqueKeys: uniques
      .filter((u) => u.table === l.table && !u.has_expressions && pgArray(u.columns).includes(l.column))
      .map((u) => ({ name: u.name, others: pgArray(u.columns).filter((c) => c !== 'tenant_id' && c !== l.column), predicate: u.predicate })),
    columns: columns.filter((c) => c.table === l.table).map((c) => c.column),
    dependents: dependents.filter((d) => d.target === l.table).map((d) => ({ table: d.table, column: d.column, notNull: d.not_null })),
  }));
}

/**
 * Before rows of `link.table` matching `where` (over alias x) are deleted: the nullable columns that
 * point at them without a cascade are set to null, so the delete is not refused (a task made from
 * a request outlives the request). A NOT NULL one is left to refuse the delete (409).
 */
export async function detachDependents(tx: Db, tenantId: number, link: ContactLink, where: string): Promise<void> {
  for (const d of link.dependents) {
    if (d.notNull) continue;
    await tx.execute(sql.raw(`UPDATE ${ident(d.table)} SET ${ident(d.column)} = NULL WHERE tenant_id = ${tenantId}
      AND ${ident(d.column)} IN (SELECT x.id FROM ${ident(link.table)} AS x WHERE x.tenant_id = ${tenantId} AND ${where})`));
  }
}

/** name[] arrives as a JS array from both drivers for text[], but be lenient with '{a,b}'. */
function pgArray(value: string[] | string): string[] {
  if (Array.isArray(value)) return value;
  return value.replace(/^\{|\}$/g, '').split(',').filter(Boolean).map((s) => s.replace(/^"|"$/g, ''));
}

export function rowsOf<T>(result: unknown): T[] {
  return (result as { rows: T[] }).rows;
}

/**
 * The links, read at first use and kept: the schema only changes with a migration, which restarts
 * the process. One cache per app (the routes plugin makes it), so test apps on other databases do
 * not share it.
 */
export function contactLinksCache() {
  let cached: Promise<ContactLink[]> | undefined;
  return (tx: Db): Promise<ContactLink[]> => {
    if (!cached) {
      cached = readLinks(tx);
      cached.catch(() => (cached = undefined));
    }
    return cached;
  };
}

export type LoadContactLinks = ReturnType<typeof contactLinksCache>;
