import { and, eq, sql } from 'drizzle-orm';
import { describe, expect, it } from 'vitest';
import { beginTenantAhead, releaseAhead, transaction, withTenant } from '../../src/db/client.js';
import { contacts, persons, users } from '../../src/db/schema/index.js';
import { insertPersonContact } from '../../src/modules/contacts/contacts.repository.js';
import { setupTestApp } from '../helpers/app.js';
import { newTenant } from '../helpers/factories.js';

const ctx = setupTestApp();

async function rowsOf<T>(query: Promise<{ rows: T[] } | T[]>): Promise<T[]> {
  const result = await query;
  return Array.isArray(result) ? result : result.rows;
}

describe('row level security', () => {
  it('withTenant commits on success, rolls back on error, and leaves no tenant bound afterwards', async () => {
    const a = await newTenant(ctx);
    const count = async () => (await ctx.db.select({ id: contacts.id }).from(contacts).where(eq(contacts.tenantId, a.id))).length;
    const before = await count();
    await expect(
      withTenant(ctx.db, a.id, async (tx) => {
        await insertPersonContact(tx, a.id, { firstName: 'Rolled', lastName: 'Back' });
        throw new Error('boom');
      }),
    ).rejects.toThrow('boom');
    expect(await count()).toBe(before);
    await withTenant(ctx.db, a.id, (tx) => insertPersonContact(tx, a.id, { firstName: 'Kept', lastName: 'Row' }));
    expect(await count()).toBe(before + 1);
    // The binding was transaction-local: the next statement outside runs with no tenant and no role.
    const [setting] = await rowsOf<{ tenant: string | null; role: string }>(
      ctx.db.execute(sql`select nullif(current_setting('app.tenant_id', true), '') as tenant, current_user as role`) as never,
    );
    expect(setting.tenant).toBeNull();
    expect(setting.role).not.toBe('app_user');
  });

  it("a transaction begun ahead runs its leading statement bound to the tenant and serves its owner's first withTenant only", async () => {
    const a = await newTenant(ctx);
    const early = await beginTenantAhead(ctx.db, a.id, { name: 'test_probe', types: ['int'], sql: "SELECT txid_current(), current_setting('app.tenant_id'), current_user, $1" }, [7]);
    if (ctx.appDb.kind === 'pglite') {
      expect(early).toBeUndefined(); // no round trips to save: callers run their query as usual
      return;
    }
    const [[txid, tenant, role, arg]] = early!.rows;
    expect([tenant, role, arg]).toEqual([String(a.id), 'app_user', 7]);
    const owner = { tenantId: a.id };
    early!.handTo(owner);
    const txidIn = async () => (await rowsOf<{ id: string }>(withTenant(ctx.db, owner, (tx) => tx.execute(sql`select txid_current()::text as id`)) as never))[0].id;
    expect(await txidIn()).toBe(String(txid));
    expect(await txidIn()).not.toBe(String(txid));

    // Let go unused: rolled back, and the owner's next withTenant opens its own.
    const unused = (await beginTenantAhead(ctx.db, a.id, { name: 'test_txid', types: [], sql: 'SELECT txid_current()' }, []))!;
    unused.handTo(owner);
    releaseAhead(owner);
    expect(await txidIn()).not.toBe(String(unused.rows[0][0]));
  });

  it('tenant work plans without parallel workers (short OLTP statements), on both paths', async () => {
    const a = await newTenant(ctx);
    const setting = sql`select current_setting('max_parallel_workers_per_gather') as workers`;
    const [inside] = await withTenant(ctx.db, a.id, (tx) => rowsOf<{ workers: string }>(tx.execute(setting) as never));
    expect(inside.workers).toBe('0');
    const early = await beginTenantAhead(ctx.db, a.id, { name: 'test_workers', types: [], sql: "SELECT current_setting('max_parallel_workers_per_gather')" }, []);
    if (early) {
      expect(early.rows[0][0]).toBe('0');
      early.release();
    }
  });

  it('a query without a tenant filter inside withTenant sees only that tenant', async () => {
    const a = await newTenant(ctx);
    const b = await newTenant(ctx);
    await withTenant(ctx.db, b.id, (tx) => insertPersonContact(tx, b.id, { firstName: 'Only', lastName: 'InB' }));
    // Outside withTenant (system connection) both tenants' rows exist.
    const all = await ctx.db.select({ tenantId: contacts.tenantId }).from(contacts);
    expect(all.some((r) => r.tenantId === a.id) && all.some((r) => r.tenantId === b.id)).toBe(true);

    const seenByA = await withTenant(ctx.db, a.id, (tx) => tx.select().from(contacts));
    expect(seenByA.length).toBeGreaterThan(0);
    expect(seenByA.every((r) => r.tenantId === a.id)).toBe(true);
    const seenByB = await withTenant(ctx.db, b.id, (tx) => tx.select().from(persons));
    expect(seenByB.map((p) => p.lastName).sort()).toEqual(['Administrator', 'InB']);
    const usersSeen = await withTenant(ctx.db, a.id, (tx) => tx.select().from(users));
    expect(usersSeen.map((u) => u.tenantId)).toEqual([a.id]);
  });

  it("writing another tenant's rows inside withTenant fails or touches nothing", async () => {
    const a = await newTenant(ctx);
    const b = await newTenant(ctx);
    await expect(withTenant(ctx.db, a.id, (tx) => tx.insert(contacts).values({ tenantId: b.id, category: 'Person' }))).rejects.toThrow();
    // Moving a row to another tenant violates the policy's WITH CHECK.
    await expect(
      withTenant(ctx.db, a.id, (tx) => tx.update(contacts).set({ tenantId: b.id }).where(eq(contacts.id, a.admin.contactId))),
    ).rejects.toThrow();
    // Updates and deletes of B's rows from A's transaction match nothing.
    const updated = await withTenant(ctx.db, a.id, (tx) =>
      tx.update(persons).set({ firstName: 'Hacked' }).where(eq(persons.contactId, b.admin.contactId)).returning(),
    );
    expect(updated).toEqual([]);
    const deleted = await withTenant(ctx.db, a.id, (tx) => tx.delete(users).where(eq(users.id, b.admin.id)).returning());
    expect(deleted).toEqual([]);
    const [still] = await ctx.db.select().from(persons).where(and(eq(persons.tenantId, b.id), eq(persons.contactId, b.admin.contactId)));
    expect(still.firstName).toBe('Church');
    // The failed transaction left nothing behind.
    const bContacts = await ctx.db.select().from(contacts).where(eq(contacts.tenantId, b.id));
    expect(bContacts.map((c) => c.id)).toEqual([b.admin.contactId]);
  });

  it('the tenant binding is transaction-local: it does not leak to the next query', async () => {
    const a = await newTenant(ctx);
    await withTenant(ctx.db, a.id, (tx) => tx.select().from(contacts));
    const [after] = await rowsOf<{ role: string; tenant: string | null }>(
      ctx.db.execute(sql`select current_user as role, nullif(current_setting('app.tenant_id', true), '') as tenant`) as never,
    );
    expect(after.role).not.toBe('app_user');
    expect(after.tenant).toBeNull();
    // A transaction that failed inside withTenant does not leak either.
    await expect(withTenant(ctx.db, a.id, async () => Promise.reject(new Error('boom')))).rejects.toThrow('boom');
    const [again] = await rowsOf<{ role: string }>(ctx.db.execute(sql`select current_user as role`) as never);
    expect(again.role).not.toBe('app_user');
  });

  it('as app_user without a tenant bound, nothing is visible', async () => {
    await newTenant(ctx);
    const seen = await transaction(ctx.db, async (tx) => {
      await tx.execute(sql`select set_config('role', 'app_user', true)`);
      return tx.select().from(contacts);
    });
    expect(seen).toEqual([]);
  });

  it('every table with a tenant_id column has RLS enabled with the tenant_isolation policy', async () => {
    const tables = await rowsOf<{ table_name: string; rls: boolean; policy: string | null }>(
      ctx.db.execute(sql`
        select c.table_name, cl.relrowsecurity as rls,
               (select p.policyname from pg_policies p where p.schemaname = 'public' and p.tablename = c.table_name and p.policyname = 'tenant_isolation') as policy
        from information_schema.columns c
        join information_schema.tables t on t.table_schema = c.table_schema and t.table_name = c.table_name and t.table_type = 'BASE TABLE'
        join pg_class cl on cl.relname = c.table_name and cl.relnamespace = 'public'::regnamespace
        where c.table_schema = 'public' and c.column_name = 'tenant_id'
        order by c.table_name`) as never,
    );
    const names = tables.map((t) => t.table_name);
    for (const expected of ['contacts', 'persons', 'users', 'roles', 'user_roles', 'refresh_tokens', 'password_reset_tokens']) expect(names).toContain(expected);
    expect(tables.filter((t) => !t.rls || t.policy !== 'tenant_isolation').map((t) => t.table_name)).toEqual([]);
  });
});
