import { sql } from 'drizzle-orm';
import { describe, expect, it } from 'vitest';
import { withTenant } from '../../src/db/client.js';
import { api, setupTestApp } from '../helpers/app.js';
import { newTenant, newUser } from '../helpers/factories.js';
import { newGroup } from '../helpers/groups.factories.js';

const ctx = setupTestApp();

async function rows<T>(query: string): Promise<T[]> {
  return ((await ctx.db.execute(sql.raw(query))) as unknown as { rows: T[] }).rows;
}

/** Tables of the public schema with a tenant_id column: the tables Citus would distribute by it. */
const TENANT_TABLES = `
  select c.oid, c.relname from pg_class c
  join pg_attribute a on a.attrelid = c.oid and a.attname = 'tenant_id' and not a.attisdropped
  where c.relnamespace = 'public'::regnamespace and c.relkind in ('r', 'p')`;

/**
 * The rules a distribution by tenant_id needs (issue 19), read from the catalog of the migrated
 * database, so a table or index added by any later migration is held to them.
 */
describe('ready to distribute by tenant_id', () => {
  it('sees the tenant tables (the catalog query itself works)', async () => {
    const names = (await rows<{ relname: string }>(TENANT_TABLES)).map((r) => r.relname);
    for (const t of ['contacts', 'groups', 'group_membership_requests', 'users', 'changes', 'events']) expect(names).toContain(t);
  });

  it("every tenant table's primary key and unique indexes include tenant_id", async () => {
    const missing = await rows<{ tbl: string; idx: string }>(`
      with tt as (${TENANT_TABLES})
      select tt.relname as tbl, i.indexrelid::regclass::text as idx
      from tt join pg_index i on i.indrelid = tt.oid
      where (i.indisprimary or i.indisunique)
        and not exists (select 1 from pg_attribute a where a.attrelid = tt.oid and a.attname = 'tenant_id' and a.attnum = any(i.indkey::int2[]))
      order by 1, 2`);
    expect(missing, 'unique indexes without tenant_id').toEqual([]);
  });

  it('every foreign key between tenant tables maps tenant_id to tenant_id; no other table refers to a tenant table', async () => {
    const bad = await rows<{ fk: string; tbl: string }>(`
      with tt as (${TENANT_TABLES})
      select con.conname as fk, c.relname || ' -> ' || f.relname as tbl
      from pg_constraint con join pg_class c on c.oid = con.conrelid join pg_class f on f.oid = con.confrelid
      where con.contype = 'f' and f.oid in (select oid from tt)
        and (c.oid not in (select oid from tt) or not exists (
          select 1 from generate_subscripts(con.conkey, 1) k
          join pg_attribute a1 on a1.attrelid = con.conrelid and a1.attnum = con.conkey[k] and a1.attname = 'tenant_id'
          join pg_attribute a2 on a2.attrelid = con.confrelid and a2.attnum = con.confkey[k] and a2.attname = 'tenant_id'))
      order by 1`);
    expect(bad, 'foreign keys that would cross shards').toEqual([]);
  });

  it('membership_requests.handled_by refers to users; deleting the handler clears it and keeps the request', async () => {
    const t = await newTenant(ctx);
    const group = await newGroup(ctx, t, { name: 'Choir' });
    const handler = await newUser(ctx, t, ['groups:read', 'groups:write', 'hierarchy:all', 'contacts:read']);
    const member = await newUser(ctx, t, 'Member');
    const asked = await api(ctx.app, member.token).post('/api/groups/membership-request', { groupId: group.id, contactId: member.contactId });
    expect(asked.statusCode, asked.body).toBe(201);
    const approved = await api(ctx.app, handler.token).put(`/api/groups/membership-request/${asked.json().id}/approve`);
    expect(approved.statusCode, approved.body).toBe(200);
    expect(approved.json().handledBy).toBe(handler.id);

    // The database refuses a handler that is not a user of the tenant.
    await expect(withTenant(ctx.db, t.id, (tx) => tx.execute(sql`update group_membership_requests set handled_by = ${handler.id + 100000} where tenant_id = ${t.id}`))).rejects.toThrow();

    expect((await api(ctx.app, t.admin.token).delete(`/api/users/${handler.id}`)).statusCode).toBe(204);
    const [row] = await rows<{ handled_by: unknown; status: string }>(`select handled_by, status from group_membership_requests where tenant_id = ${t.id}`);
    expect(row).toEqual({ handled_by: null, status: 'Approved' });
  });
});
