import type { PgTable } from 'drizzle-orm/pg-core';
import type { Db } from '../src/db/client.js';

/**
 * Runs `fn` in a transaction of its own, bound to the generated tenant. The generator commits part by
 * part: the rollups its statements' triggers queue are applied at each commit (bounded work), where one
 * transaction for a whole tenant piled them up until its commit (issue 35: huge's load).
 */
export type InTenant = <T>(fn: (tx: Db) => Promise<T>) => Promise<T>;

/**
 * ANALYZE of tables the generator is filling, as their owner (withTenant's role may not: PostgreSQL
 * skips such a table with a warning). This machine's PostgreSQL runs without autovacuum, so without
 * it the planner keeps the statistics of an empty table while the load fills it, and the rollups
 * applied at each commit plan their lookups by them: on huge, retention_apply's removal of the
 * commit's contacts from retention_visitors (contact_id = ANY (5,000 contacts)) scanned every visitor
 * so far and compared each with the whole array, 2 s a commit of the events' attendance and growing.
 * A live database's autovacuum analyzes a table as it grows.
 */
export type Analyze = (tables: ('attendance_sessions' | 'contact_first_visits' | 'retention_visitors' | 'contributions' | 'contribution_lines')[]) => Promise<void>;

// PostgreSQL allows 65,535 parameters a statement; stay well below and cap rows per statement.
const MAX_PARAMS = 40_000;
const MAX_ROWS = 5_000;

function chunkSize(rows: Record<string, unknown>[]): number {
  const columns = Math.max(1, Object.keys(rows[0]).length);
  return Math.max(1, Math.min(MAX_ROWS, Math.floor(MAX_PARAMS / columns)));
}

/** Multi-row INSERTs through the Drizzle schema (so constraints, defaults and RLS apply), a few thousand rows each. */
export async function insertMany(tx: Db, table: PgTable, rows: Record<string, unknown>[]): Promise<void> {
  if (!rows.length) return;
  const size = chunkSize(rows);
  for (let i = 0; i < rows.length; i += size) {
    await tx.insert(table).values(rows.slice(i, i + size) as never);
  }
}

/** Like insertMany, returning the new ids in insertion order (a multi-row VALUES returns its rows in order). */
export async function insertReturningIds(tx: Db, table: PgTable & { id: unknown }, rows: Record<string, unknown>[]): Promise<number[]> {
  const ids: number[] = [];
  if (!rows.length) return ids;
  const size = chunkSize(rows);
  for (let i = 0; i < rows.length; i += size) {
    const out = (await tx
      .insert(table)
      .values(rows.slice(i, i + size) as never)
      .returning({ id: table.id as never })) as { id: number }[];
    for (const row of out) ids.push(Number(row.id));
  }
  return ids;
}
