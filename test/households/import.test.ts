import { describe, expect, it } from 'vitest';
import { lastChangeId, recorded, storedChanges } from '../changes/helpers.js';
import { api, setupTestApp } from '../helpers/app.js';
import { newPerson } from '../helpers/contacts.factories.js';
import { newTenant, type TestTenant } from '../helpers/factories.js';
import { newHousehold } from '../helpers/households.factories.js';

/** The contacts import's household columns (modules-contract §8 "Import"): JSON and CSV, through HTTP. */
const ctx = setupTestApp();

const importJson = (t: TestTenant, rows: unknown[]) => api(ctx.app, t.admin.token).post('/api/crm/contacts/import', { contacts: rows });
const importCsv = (t: TestTenant, text: string) =>
  ctx.app.inject({ method: 'POST', url: '/api/crm/contacts/import', payload: text, headers: { authorization: `Bearer ${t.admin.token}`, 'content-type': 'text/csv' } });

interface Household {
  id: number;
  name: string;
  givingTogether: boolean;
  primaryContact: { id: number; firstName: string } | null;
  members: { contact: { id: number; firstName: string; lastName: string }; role: string }[];
}

async function households(t: TestTenant): Promise<Household[]> {
  const res = await api(ctx.app, t.admin.token).get('/api/crm/households?limit=100');
  expect(res.statusCode).toBe(200);
  return res.json().data;
}

const membersOf = (h: Household) => h.members.map((m) => `${m.contact.firstName} ${m.role}`);

describe('contacts import: householdKey and householdRole', () => {
  it('JSON: rows sharing a key end in one household named by the default rule; a keyed row without a role is Other; household.created alone', async () => {
    const t = await newTenant(ctx);
    const rows = [
      { firstName: 'Amani', lastName: 'Otieno', email: 'amani@example.org', householdKey: 'F-1', householdRole: 'Child' },
      { firstName: 'Peter', lastName: 'Odhiambo', email: 'peter@example.org', householdKey: 'F-1', householdRole: 'Head' },
      { firstName: 'Grace', lastName: 'Odhiambo', email: 'grace@example.org', householdKey: 'F-1', householdRole: 'Spouse' },
      { firstName: 'Lodger', lastName: 'Kim', email: 'lodger@example.org', householdKey: 'F-1' },
      { firstName: 'Solo', lastName: 'Walker', email: 'solo@example.org', householdKey: 'F-2' },
      { firstName: 'No', lastName: 'Family', email: 'nofamily@example.org' },
    ];
    const { result: res, changes } = await recorded(ctx, t.id, () => importJson(t, rows));
    expect(res.statusCode, res.body).toBe(200);
    expect(res.json()).toMatchObject({ total: 6, created: 6, updated: 0, unchanged: 0, failed: 0, errors: [] });
    const list = await households(t);
    expect(list.map((h) => h.name)).toEqual(['Odhiambo household', 'Walker household']);
    const [family, solo] = list;
    expect(membersOf(family)).toEqual(['Amani Child', 'Peter Head', 'Grace Spouse', 'Lodger Other']);
    expect(family.primaryContact?.firstName).toBe('Peter');
    expect(family.givingTogether).toBe(false);
    expect(membersOf(solo)).toEqual(['Solo Other']);
    expect(solo.primaryContact?.firstName).toBe('Solo');
    const householdChanges = changes.filter((c) => c.entityType === 'household');
    expect(householdChanges.map((c) => [c.type, c.entityId])).toEqual([['household.created', family.id], ['household.created', solo.id]]);
    expect(householdChanges[0]).toMatchObject({ actorUserId: t.admin.id, data: { name: 'Odhiambo household', members: family.members.map((m) => ({ contactId: m.contact.id, role: m.role })), imported: true } });
    const contact = (await api(ctx.app, t.admin.token).get(`/api/crm/contacts/${family.members[2].contact.id}`)).json();
    expect(contact.household).toEqual({ id: family.id, name: 'Odhiambo household', role: 'Spouse' });
    expect(changes.filter((c) => c.type === 'contact.created')).toHaveLength(6);

    // The same rows again: nothing is written or recorded, and every row says so.
    const before = await lastChangeId(ctx, t.id);
    const again = await importJson(t, rows);
    expect(again.json()).toMatchObject({ total: 6, created: 0, updated: 0, unchanged: 6, failed: 0, errors: [] });
    expect(await storedChanges(ctx, t.id, before)).toEqual([]);
    expect(await households(t)).toEqual(list);
  });

  it('CSV: headers in any case; a second import finds the household by its key, adds new members, changes given roles and keeps the others', async () => {
    const t = await newTenant(ctx);
    const first = await importCsv(t, 'firstName,lastName,email,Household Key,household_role\nJohn,Banda,john@example.org,B-7,Head\nMary,Banda,mary@example.org,B-7,Other\nTom,Banda,tom@example.org,B-7,Child\n');
    expect(first.statusCode, first.body).toBe(200);
    expect(first.json()).toMatchObject({ created: 3, failed: 0 });
    const [created] = await households(t);
    expect(membersOf(created)).toEqual(['John Head', 'Mary Other', 'Tom Child']);

    // Mary becomes Spouse, Tom's row names no role (his stays), Ruth joins, John as before.
    const { result: second, changes } = await recorded(ctx, t.id, () => importCsv(t,
      'FirstName,LastName,Email,HouseholdKey,HouseholdRole\nJohn,Banda,john@example.org,B-7,Head\nMary,Banda,mary@example.org,B-7,Spouse\nTom,Banda,tom@example.org,B-7,\nRuth,Banda,ruth@example.org,B-7,Child\n'));
    expect(second.json()).toMatchObject({ total: 4, created: 1, updated: 1, unchanged: 2, failed: 0, errors: [] });
    const list = await households(t);
    expect(list).toHaveLength(1);
    expect(list[0].id).toBe(created.id);
    expect(membersOf(list[0])).toEqual(['John Head', 'Mary Spouse', 'Tom Child', 'Ruth Child']);
    const ruth = list[0].members[3].contact.id;
    const mary = list[0].members[1].contact.id;
    expect(changes.filter((c) => c.entityType === 'household').map((c) => [c.type, c.entityId, c.data.contactId, c.data.role])).toEqual([
      ['household.member_updated', created.id, mary, 'Spouse'],
      ['household.member_added', created.id, ruth, 'Child'],
    ]);
    expect(changes.find((c) => c.type === 'household.member_updated')?.changes).toEqual({ role: { from: 'Other', to: 'Spouse' } });
    // Mary's person is as it was: no contact.updated for a household-only change.
    expect(changes.filter((c) => c.type === 'contact.updated')).toEqual([]);
  });

  it('imports of one key running at once end in one household (the key is locked, not raced)', async () => {
    const t = await newTenant(ctx);
    const results = await Promise.all(Array.from({ length: 4 }, (_, i) => importJson(t, [
      { firstName: `P${i}`, lastName: 'Concurrent', email: `p${i}@example.org`, householdKey: 'SAME', householdRole: i === 0 ? 'Head' : 'Child' },
    ])));
    expect(results.map((r) => r.statusCode)).toEqual([200, 200, 200, 200]);
    const list = await households(t);
    expect(list).toHaveLength(1);
    expect(list[0].members.map((m) => m.contact.firstName).sort()).toEqual(['P0', 'P1', 'P2', 'P3']);
  });

  it('a key already known in one tenant makes a separate household in another; the first tenant\'s household is untouched', async () => {
    const a = await newTenant(ctx);
    const b = await newTenant(ctx);
    await importJson(a, [{ firstName: 'Anna', lastName: 'Kariuki', email: 'anna@example.org', householdKey: 'shared-key', householdRole: 'Head' }]);
    const [inA] = await households(a);
    const beforeA = await lastChangeId(ctx, a.id);
    const res = await importJson(b, [
      { firstName: 'Ben', lastName: 'Mutua', email: 'anna@example.org', householdKey: 'shared-key', householdRole: 'Head' },
      { firstName: 'Bea', lastName: 'Mutua', email: 'bea@example.org', householdKey: 'shared-key', householdRole: 'Spouse' },
    ]);
    expect(res.json()).toMatchObject({ created: 2, updated: 0, failed: 0 });
    const [inB] = await households(b);
    expect(inB.name).toBe('Mutua household');
    expect(membersOf(inB)).toEqual(['Ben Head', 'Bea Spouse']);
    expect(inB.id).not.toBe(inA.id);
    expect(await households(a)).toEqual([inA]);
    expect(membersOf(inA)).toEqual(['Anna Head']);
    expect(await storedChanges(ctx, a.id, beforeA)).toEqual([]);
    expect((await api(ctx.app, b.admin.token).get(`/api/crm/households/${inA.id}`)).statusCode).toBe(404);
  });
});

describe('contacts import: household row errors', () => {
  it('a role without a key, an unknown role, a key other than the person\'s household, two keys for one person and a 31st member are row errors; the other rows are imported', async () => {
    const t = await newTenant(ctx);
    const people = [await newPerson(ctx, t, 'Head0', 'Phiri', { emails: [{ value: 'phiri@example.org' }] }), await newPerson(ctx, t, 'Spouse1', 'Phiri')];
    const manual = await newHousehold(ctx, t, { members: [{ contactId: people[0].id, role: 'Head' }, { contactId: people[1].id, role: 'Spouse' }] });
    await importJson(t, [{ firstName: 'Keyed', lastName: 'Zulu', email: 'keyed@example.org', householdKey: 'Z-1', householdRole: 'Head' }]);
    const [, zulu] = (await households(t)).sort((x, y) => x.id - y.id);
    const big = Array.from({ length: 31 }, (_, i) => ({ firstName: `M${i}`, lastName: 'Many', householdKey: 'BIG', householdRole: 'Other' }));
    const res = await importJson(t, [
      { firstName: 'Role', lastName: 'NoKey', householdRole: 'Head' },
      { firstName: 'Bad', lastName: 'Role', householdKey: 'X', householdRole: 'Cousin' },
      { firstName: 'Head0', lastName: 'Phiri', email: 'phiri@example.org', householdKey: 'P-9', householdRole: 'Head' },
      { firstName: 'Keyed', lastName: 'Zulu', email: 'keyed@example.org', householdKey: 'Z-2' },
      { firstName: 'Twice', lastName: 'Keyed', email: 'twice@example.org', householdKey: 'T-1' },
      { firstName: 'Twice', lastName: 'Keyed', email: 'twice@example.org', householdKey: 'T-2' },
      { firstName: 'Fine', lastName: 'Person', email: 'fine@example.org', householdKey: 'OK', householdRole: 'Head' },
      ...big,
    ]);
    expect(res.statusCode, res.body).toBe(200);
    const body = res.json();
    expect(body).toMatchObject({ total: 38, created: 32, updated: 0, unchanged: 0, failed: 6 });
    expect(body.errors).toEqual([
      { row: 1, message: 'householdRole needs a householdKey' },
      { row: 2, message: expect.stringMatching(/^householdRole must be one of: Head, Spouse, Child, Other/) },
      { row: 3, message: `Contact ${people[0].id} already belongs to household ${manual.id}` },
      { row: 4, message: `Contact ${zulu.members[0].contact.id} already belongs to household ${zulu.id}` },
      { row: 6, message: 'householdKey T-2 differs from T-1, given to the same person by row 5' },
      { row: 38, message: 'householdKey BIG has more than 30 members' },
    ]);
    const list = await households(t);
    expect(list.find((h) => h.id === manual.id)?.members.map((m) => m.contact.id)).toEqual(people.map((p) => p.id));
    expect(membersOf(list.find((h) => h.id === zulu.id)!)).toEqual(['Keyed Head']);
    expect(list.map((h) => h.name).sort()).toEqual(['Keyed household', 'Many household', 'Person household', 'Phiri household', 'Zulu household']);
    expect(list.find((h) => h.name === 'Many household')?.members).toHaveLength(30);

    // A found household at its limit refuses a 31st member too.
    const more = await importJson(t, [{ firstName: 'M31', lastName: 'Many', householdKey: 'BIG' }]);
    const many = list.find((h) => h.name === 'Many household')!;
    expect(more.json()).toMatchObject({ created: 0, failed: 1, errors: [{ row: 1, message: `Household ${many.id} already has 30 members (at most 30)` }] });
  });

  it('CSV rows get the same household rules', async () => {
    const t = await newTenant(ctx);
    const other = await newPerson(ctx, t, 'Solo', 'Person', { emails: [{ value: 'solo@example.org' }] });
    const res = await importCsv(t, 'firstName,lastName,email,householdKey,householdRole\nA,B,,,Child\nC,D,,K,Cousin\nSolo,Person,solo@example.org,K,Head\n');
    expect(res.json()).toMatchObject({
      total: 3, created: 0, updated: 1, unchanged: 0, failed: 2,
      errors: [{ row: 1, message: 'householdRole needs a householdKey' }, { row: 2, message: expect.stringMatching(/^householdRole must be one of/) }],
    });
    const [h] = await households(t);
    expect(h.members.map((m) => [m.contact.id, m.role])).toEqual([[other.id, 'Head']]);
  });
});
