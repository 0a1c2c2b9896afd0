import { and, count, eq, isNotNull, like, ne, sql, type SQL } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { generate, type Dataset } from '../../bench/generate.js';
import { SIZES } from '../../bench/sizes.js';
import { attendanceRecords, contacts, eventRegistrations, events, groupMemberships, groups, tenants, users } from '../../src/db/schema/index.js';
import type { AppDb, Db } from '../../src/db/client.js';
import { createTestDb } from '../helpers/db.js';
import { withTenant } from '../../src/db/client.js';
import { refreshSearchColumns } from '../../src/modules/contacts/contacts.repository.js';

// The database alone (no app): the generator writes through the schema, not through HTTP.
const ctx = {} as { appDb: AppDb; db: Db };
beforeAll(async () => {
  ctx.appDb = await createTestDb();
  ctx.db = ctx.appDb.db;
});
afterAll(() => ctx.appDb?.close());
const toy = SIZES.toy;

async function countOf(table: typeof contacts | typeof groups | typeof groupMemberships | typeof events | typeof attendanceRecords, tenantId: number) {
  const [row] = await ctx.db.select({ n: count() }).from(table).where(eq(table.tenantId, tenantId));
  return Number(row.n);
}

describe('bench data generator (toy size)', () => {
  let data: Dataset;

  it('loads the main tenant and the other tenants with the requested row counts', async () => {
    data = await generate(ctx.db, { size: 'toy', otherTenants: 1, otherSize: 'toy', slugPrefix: 'gen-test' });
    const slugs = (await ctx.db.select({ slug: tenants.slug }).from(tenants).where(like(tenants.slug, 'gen-test-%'))).map((t) => t.slug).sort();
    expect(slugs).toEqual(['gen-test-other-1', 'gen-test-toy']);
    // + 1: createTenant's administrator contact.
    expect(await countOf(contacts, data.tenantId)).toBe(toy.contacts + 1);
    expect(await countOf(groups, data.tenantId)).toBe(toy.groups);
    expect(await countOf(groupMemberships, data.tenantId)).toBe(toy.memberships);
    expect(await countOf(events, data.tenantId)).toBe(toy.events);
    const [eventRecords] = await ctx.db.select({ n: count() }).from(attendanceRecords).where(and(eq(attendanceRecords.tenantId, data.tenantId), isNotNull(attendanceRecords.eventId)));
    expect(Number(eventRecords.n)).toBe(toy.attendance);
    // The modules' data: a year of weekly meetings per fellowship with records, tasks, cards, gifts, changes.
    const one = async (query: SQL) => Number(((await ctx.db.execute(query)) as unknown as { rows: { n: number | string }[] }).rows[0].n);
    const t = data.tenantId;
    expect(await one(sql`select count(*) as n from attendance_sessions where tenant_id = ${t} and source = 'Service'`)).toBe(52 * (await one(sql`select count(*) as n from attendance_services where tenant_id = ${t}`)));
    expect(await one(sql`select count(*) as n from attendance_records where tenant_id = ${t} and event_id is null`)).toBeGreaterThan(0);
    expect(await one(sql`select count(*) as n from tasks where tenant_id = ${t} and card_id is null`)).toBe(toy.tasks);
    expect(await one(sql`select count(*) as n from pipeline_cards where tenant_id = ${t} and pipeline_id = ${data.pipelineId}`)).toBe(toy.pipelineCards);
    expect(await one(sql`select count(*) as n from contributions where tenant_id = ${t} and contact_id = ${data.donorContactId}`)).toBe(52);
    expect(await one(sql`select count(*) as n from contributions c where tenant_id = ${t} and amount <> (select sum(amount) from contribution_lines l where l.tenant_id = c.tenant_id and l.contribution_id = c.id)`)).toBe(0);
    // Every gift has its line (the lines go in two statements), and the rollups the triggers keep add up.
    expect(await one(sql`select count(*) as n from contributions c where tenant_id = ${t} and not exists (select 1 from contribution_lines l where l.tenant_id = c.tenant_id and l.contribution_id = c.id)`)).toBe(0);
    expect(await one(sql`select coalesce(sum(net), 0) - (select sum(amount) from contributions where tenant_id = ${t}) as n from giving_days where tenant_id = ${t} and fund_id = 0`)).toBe(0);
    // The events' sessions are made before their records, with the values the attendance trigger gives one.
    expect(await one(sql`select count(*) as n from attendance_records r join attendance_sessions s on s.tenant_id = r.tenant_id and s.id = r.session_id
      join events e on e.tenant_id = r.tenant_id and e.id = r.event_id
      where r.tenant_id = ${t} and (s.source <> 'Event' or s.event_id <> e.id or s.date <> e.start_date or s.group_id is distinct from e.group_id or r.date <> e.start_date)`)).toBe(0);
    expect(await one(sql`select count(*) as n from changes where tenant_id = ${t} and type = 'contact.updated'`)).toBe(toy.changes);
    const [big] = await ctx.db.select({ n: count() }).from(eventRegistrations).where(and(eq(eventRegistrations.tenantId, data.tenantId), eq(eventRegistrations.eventId, data.bigEventId)));
    expect(Number(big.n)).toBe(toy.bigEventRegistrations);
  }, 120_000);

  it('puts about 60% of the people in households: the oldest the Head and primary contact, named after them', async () => {
    const one = async (query: SQL) => Number(((await ctx.db.execute(query)) as unknown as { rows: { n: number | string }[] }).rows[0].n);
    const t = data.tenantId;
    const people = await one(sql`select count(*) as n from contacts where tenant_id = ${t} and category = 'Person'`);
    const members = await one(sql`select count(*) as n from household_members where tenant_id = ${t}`);
    expect(members / people).toBeGreaterThan(0.4);
    expect(members / people).toBeLessThan(0.8);
    expect(await one(sql`select count(*) as n from households where tenant_id = ${t}`)).toBeGreaterThan(members / 4);
    // Exactly one Head per household, who is its primary contact and names it; no Spouse or Child without one.
    expect(await one(sql`select count(*) as n from households h where h.tenant_id = ${t} and (
      (select count(*) from household_members m where m.tenant_id = h.tenant_id and m.household_id = h.id and m.role = 'Head') <> 1
      or h.primary_contact_id is distinct from (select m.contact_id from household_members m where m.tenant_id = h.tenant_id and m.household_id = h.id and m.role = 'Head')
      or h.name <> (select p.last_name || ' household' from persons p where p.tenant_id = h.tenant_id and p.contact_id = h.primary_contact_id))`)).toBe(0);
    expect(await one(sql`select count(*) as n from household_members m join persons p on p.tenant_id = m.tenant_id and p.contact_id = m.contact_id
      where m.tenant_id = ${t} and m.role = 'Child' and p.date_of_birth < date '2008-01-01'`)).toBe(0);
    expect(data.lookupPrefix).toMatch(/^\p{L}{2,3}/u);
  });

  it('keeps the group tree paths and the six levels', async () => {
    const rows = await ctx.db.select({ id: groups.id, parentId: groups.parentId, path: groups.path }).from(groups).where(eq(groups.tenantId, data.tenantId));
    const byId = new Map(rows.map((g) => [g.id, g]));
    for (const g of rows) expect(g.path).toBe(`${g.parentId ? byId.get(g.parentId)!.path : '/'}${g.id}/`);
    expect(Math.max(...rows.map((g) => g.path.split('/').length - 2))).toBe(6);
    const leaders = await ctx.db.select({ n: count() }).from(groupMemberships).where(and(eq(groupMemberships.tenantId, data.tenantId), eq(groupMemberships.role, 'Leader')));
    expect(Number(leaders[0].n)).toBe(toy.groups);
  });

  it('fills the denormalized contact columns', async () => {
    const [wrong] = await ctx.db
      .select({ n: count() })
      .from(contacts)
      .where(and(eq(contacts.tenantId, data.tenantId), eq(contacts.category, 'Person'), sql`${contacts.sortLast} <> lower(${contacts.sortLast})`));
    expect(Number(wrong.n)).toBe(0);
    const [sample] = await ctx.db.select().from(contacts).where(and(eq(contacts.tenantId, data.tenantId), eq(contacts.id, data.sampleContactId)));
    expect(sample.searchText).toContain(sample.sortLast);
    expect(sample.phoneDigits).toMatch(/^\d+( \d+)*$/);
    const [leader] = await ctx.db.select().from(users).where(and(eq(users.tenantId, data.tenantId), eq(users.username, data.zoneLeaderUsername)));
    expect(leader.contactId).not.toBe(data.sampleContactId);
  });

  it('computes the search columns exactly as the contacts module does', async () => {
    const read = () =>
      ctx.db
        .select({ id: contacts.id, a: contacts.sortLast, b: contacts.sortFirst, c: contacts.searchText, d: contacts.phoneDigits })
        .from(contacts)
        .where(eq(contacts.tenantId, data.tenantId))
        .orderBy(contacts.id);
    const generated = await read();
    await withTenant(ctx.db, data.tenantId, (tx) => refreshSearchColumns(tx, data.tenantId, generated.map((r) => r.id)));
    expect(await read()).toEqual(generated);
  });

  it('is deterministic for a seed', async () => {
    const again = await generate(ctx.db, { size: 'toy', slugPrefix: 'gen-again' });
    const names = async (tenantId: number) =>
      (await ctx.db.select({ s: contacts.searchText }).from(contacts).where(and(eq(contacts.tenantId, tenantId), ne(contacts.sortLast, 'administrator'))).orderBy(contacts.id)).map((r) => r.s);
    expect(await names(again.tenantId)).toEqual(await names(data.tenantId));
    expect(again.nameFragment).toBe(data.nameFragment);
  });
});
