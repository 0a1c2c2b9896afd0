import { sql } from 'drizzle-orm';
import { expect } from 'vitest';
import { withTenant } from '../../src/db/client.js';
import { api, type TestContext } from '../helpers/app.js';
import type { TestTenant } from '../helpers/factories.js';

export type Row = Record<string, unknown>;

/** Rows of a statement run in the tenant's transaction (RLS on, as the app runs). */
export async function query(ctx: TestContext, tenant: TestTenant, statement: ReturnType<typeof sql>): Promise<Row[]> {
  return withTenant(ctx.db, tenant.id, async (tx) => ((await tx.execute(statement)) as unknown as { rows: Row[] }).rows);
}

export async function count(ctx: TestContext, tenant: TestTenant, statement: ReturnType<typeof sql>): Promise<number> {
  const [row] = await query(ctx, tenant, statement);
  return Number(Object.values(row)[0]);
}

/** Every table column that references contacts, as the catalog says (what export/erase/merge walk). */
export async function contactLinkColumns(ctx: TestContext): Promise<string[]> {
  const res = (await ctx.db.execute(sql`
    SELECT cl.relname || '.' || a.attname AS link
    FROM pg_constraint c
    JOIN pg_class cl ON cl.oid = c.conrelid
    JOIN pg_class target ON target.oid = c.confrelid AND target.relname = 'contacts'
    JOIN pg_attribute a ON a.attrelid = c.conrelid AND a.attnum = c.conkey[2]
    WHERE c.contype = 'f' AND cardinality(c.conkey) = 2
    ORDER BY 1`)) as unknown as { rows: { link: string }[] };
  return res.rows.map((r) => r.link);
}

export async function post(ctx: TestContext, token: string, url: string, body: unknown, status = 201) {
  const res = await api(ctx.app, token).post(url, body as Record<string, unknown>);
  expect(res.statusCode, `${url}: ${res.body}`).toBe(status);
  return res.json();
}

/** A Person through the API with an email and a phone of its own unless given. */
export async function person(ctx: TestContext, tenant: TestTenant, firstName: string, lastName: string, extra: Row = {}) {
  return post(ctx, tenant.admin.token, '/api/crm/contacts', { category: 'Person', person: { firstName, lastName }, ...extra }) as Promise<{ id: number } & Row>;
}

/** The JSON text of everything stored about the tenant's changes, contacts' child rows, users: for "value gone everywhere". */
export async function tenantText(ctx: TestContext, tenant: TestTenant): Promise<string> {
  const rows = await query(ctx, tenant, sql`
    SELECT (SELECT coalesce(json_agg(json_build_object('changes', changes, 'data', data)), '[]') FROM changes WHERE tenant_id = ${tenant.id})::text
      || (SELECT coalesce(json_agg(p), '[]') FROM persons p WHERE tenant_id = ${tenant.id})::text
      || (SELECT coalesce(json_agg(e), '[]') FROM contact_emails e WHERE tenant_id = ${tenant.id})::text
      || (SELECT coalesce(json_agg(f), '[]') FROM contact_phones f WHERE tenant_id = ${tenant.id})::text
      || (SELECT coalesce(json_agg(a), '[]') FROM contact_addresses a WHERE tenant_id = ${tenant.id})::text
      || (SELECT coalesce(json_agg(o), '[]') FROM contact_occasions o WHERE tenant_id = ${tenant.id})::text
      || (SELECT coalesce(json_agg(i), '[]') FROM contact_identifications i WHERE tenant_id = ${tenant.id})::text
      || (SELECT coalesce(json_agg(r), '[]') FROM contact_requests r WHERE tenant_id = ${tenant.id})::text
      || (SELECT coalesce(json_agg(json_build_object('u', u.username, 'e', u.email)), '[]') FROM users u WHERE tenant_id = ${tenant.id})::text
      || (SELECT coalesce(json_agg(json_build_object('s', c.search_text, 'l', c.sort_last, 'd', c.phone_digits)), '[]') FROM contacts c WHERE tenant_id = ${tenant.id})::text AS t`);
  return String(rows[0].t);
}
