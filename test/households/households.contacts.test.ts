import { beforeAll, describe, expect, it } from 'vitest';
import { recorded } from '../changes/helpers.js';
import { api, setupTestApp } from '../helpers/app.js';
import { newCompany, newPerson } from '../helpers/contacts.factories.js';
import { newTenant, type TestTenant } from '../helpers/factories.js';
import { newFamily, newHousehold } from '../helpers/households.factories.js';

const ctx = setupTestApp();

const memberIds = (h: { members: { contact: { id: number } }[] }) => h.members.map((m) => m.contact.id);

describe('households in contacts, search, delete, merge and erase', () => {
  let t: TestTenant;
  let client: ReturnType<typeof api>;
  beforeAll(async () => {
    t = await newTenant(ctx);
    client = api(ctx.app, t.admin.token);
  });

  it('the contact single read carries household {id, name, role} or null', async () => {
    const { household, people } = await newFamily(ctx, t, 'Achieng', ['Head', 'Child']);
    expect((await client.get(`/api/crm/contacts/${people[1].id}`)).json().household).toEqual({ id: household.id, name: 'Achieng household', role: 'Child' });
    const loner = await newPerson(ctx, t, 'Solo', 'Achieng');
    expect((await client.get(`/api/crm/contacts/${loner.id}`)).json().household).toBeNull();
    expect((await client.get(`/api/crm/contacts/${(await newCompany(ctx, t, 'Achieng Ltd')).id}`)).json().household).toBeNull();
  });

  it('contact lists take householdId (with their other filters) and carry householdId', async () => {
    const { household, people } = await newFamily(ctx, t, 'Zulu', ['Head', 'Spouse', 'Child']);
    const res = await client.get(`/api/crm/contacts?householdId=${household.id}`);
    expect(res.statusCode, res.body).toBe(200);
    const body = res.json();
    expect(body.total).toBe(3);
    expect(body.data.map((c: { id: number }) => c.id).sort((a: number, b: number) => a - b)).toEqual(people.map((p) => p.id).sort((a, b) => a - b));
    expect(body.data.every((c: { householdId: number }) => c.householdId === household.id)).toBe(true);
    expect((await client.get(`/api/crm/people?householdId=${household.id}&q=child`)).json().data.map((c: { id: number }) => c.id)).toEqual([people[2].id]);
    expect((await client.get(`/api/crm/companies?householdId=${household.id}`)).json().total).toBe(0);
    expect((await client.get(`/api/crm/contacts?householdId=${household.id}&limit=2&page=2`)).json()).toMatchObject({ total: 3, page: 2 });
    const plain = (await client.get('/api/crm/contacts?q=zulu')).json();
    expect(plain.data.map((c: { householdId: number | null }) => c.householdId)).toEqual([household.id, household.id, household.id]);
    const loner = await newPerson(ctx, t, 'Lone', 'Zuluwise');
    expect((await client.get('/api/crm/contacts?q=zuluwise')).json().data).toEqual([expect.objectContaining({ id: loner.id, householdId: null })]);
  });

  it('the search box finds households by their name and their members\' names', async () => {
    const { household } = await newFamily(ctx, t, 'Ngozi', ['Head', 'Spouse']);
    const kid = await newPerson(ctx, t, 'Chiamaka', 'Eze');
    await client.post(`/api/crm/households/${household.id}/members`, { contactId: kid.id, role: 'Child' });
    const byName = (await client.get('/api/search?q=ngozi&types=households')).json();
    expect(byName.results.households).toEqual([{ id: household.id, title: 'Ngozi household', subtitle: 'Head0, Spouse1, Chiamaka', matchedOn: 'name' }]);
    expect(byName.totals).toEqual({ households: 1 });
    const byMember = (await client.get('/api/search?q=CHIAMAKA&types=households,contacts')).json();
    expect(byMember.results.households).toEqual([expect.objectContaining({ id: household.id, title: 'Ngozi household', matchedOn: 'member' })]);
    expect(byMember.results.contacts.map((h: { id: number }) => h.id)).toEqual([kid.id]);
    // Default types include households for a contacts:read caller.
    expect((await client.get('/api/search?q=ngozi')).json().totals.households).toBe(1);
  });

  it('a contact DELETE removes its membership: the primary contact is recomputed, an emptied household deleted', async () => {
    const { household, people } = await newFamily(ctx, t, 'Mbeki', ['Head', 'Spouse']);
    const { result, changes } = await recorded(ctx, t.id, () => client.delete(`/api/crm/contacts/${people[0].id}`));
    expect(result.statusCode).toBe(204);
    expect(changes.map((c) => c.type)).toEqual(['household.member_removed', 'household.updated', 'contact.deleted']);
    expect(changes[0].data).toMatchObject({ contactId: people[0].id, role: 'Head' });
    const after = (await client.get(`/api/crm/households/${household.id}`)).json();
    expect(memberIds(after)).toEqual([people[1].id]);
    expect(after.primaryContact.id).toBe(people[1].id);
    const last = await recorded(ctx, t.id, () => client.delete(`/api/crm/contacts/${people[1].id}`));
    expect(last.changes.map((c) => c.type)).toEqual(['household.member_removed', 'household.deleted', 'contact.deleted']);
    expect((await client.get(`/api/crm/households/${household.id}`)).statusCode).toBe(404);
  });

  it('merge keeps the survivor\'s household; the sources leave theirs (emptied ones deleted)', async () => {
    const { household: kept, people: keptPeople } = await newFamily(ctx, t, 'Owusu', ['Head', 'Spouse']);
    const { household: left, people: leftPeople } = await newFamily(ctx, t, 'Owusu2', ['Head', 'Child']);
    const { household: gone, people: gonePeople } = await newFamily(ctx, t, 'Owusu3', ['Head']);
    const res = await client.post(`/api/crm/contacts/${keptPeople[0].id}/merge`, { sourceIds: [leftPeople[0].id, gonePeople[0].id] });
    expect(res.statusCode, res.body).toBe(200);
    expect(res.json().household).toEqual({ id: kept.id, name: 'Owusu household', role: 'Head' });
    expect(memberIds((await client.get(`/api/crm/households/${kept.id}`)).json())).toEqual([keptPeople[0].id, keptPeople[1].id]);
    const leftAfter = (await client.get(`/api/crm/households/${left.id}`)).json();
    expect(memberIds(leftAfter)).toEqual([leftPeople[1].id]);
    expect(leftAfter.primaryContact.id).toBe(leftPeople[1].id);
    expect((await client.get(`/api/crm/households/${gone.id}`)).statusCode).toBe(404);
  });

  it('a survivor without a household takes the place and role of the first source in sourceIds that has one', async () => {
    const survivor = await newPerson(ctx, t, 'Ama', 'Boateng');
    const noHousehold = await newPerson(ctx, t, 'Ama', 'Boateng');
    // Created second, so its id is larger: request order, not id order, decides.
    const { household: first, people: firstPeople } = await newFamily(ctx, t, 'Boateng', ['Spouse', 'Head']);
    const secondPerson = await newPerson(ctx, t, 'Ama', 'Boateng');
    const second = await newHousehold(ctx, t, { members: [{ contactId: secondPerson.id, role: 'Head' }] });
    const firstSource = firstPeople[0];
    expect(firstSource.id).toBeLessThan(secondPerson.id);
    const { result: res, changes } = await recorded(ctx, t.id, () => client.post(`/api/crm/contacts/${survivor.id}/merge`, { sourceIds: [noHousehold.id, secondPerson.id, firstSource.id] }));
    expect(res.statusCode, res.body).toBe(200);
    expect(res.json().household).toEqual({ id: second.id, name: 'Boateng household', role: 'Head' });
    const secondAfter = (await client.get(`/api/crm/households/${second.id}`)).json();
    expect(memberIds(secondAfter)).toEqual([survivor.id]);
    expect(secondAfter.primaryContact.id).toBe(survivor.id);
    const firstAfter = (await client.get(`/api/crm/households/${first.id}`)).json();
    expect(memberIds(firstAfter)).toEqual([firstPeople[1].id]);
    expect(changes.filter((c) => c.type.startsWith('household.')).map((c) => [c.type, c.entityId, c.data.contactId])).toEqual([
      ['household.member_removed', second.id, secondPerson.id],
      ['household.member_added', second.id, survivor.id],
      ['household.updated', second.id, undefined],
      ['household.member_removed', first.id, firstSource.id],
    ]);
  });

  it('erase removes the erased contact from its household; an emptied household is deleted', async () => {
    const { household, people } = await newFamily(ctx, t, 'Kamau', ['Head', 'Spouse']);
    const res = await client.post(`/api/crm/contacts/${people[0].id}/erase`, { confirm: true });
    expect(res.statusCode, res.body).toBe(200);
    expect((await client.get(`/api/crm/contacts/${people[0].id}`)).json().household).toBeNull();
    const after = (await client.get(`/api/crm/households/${household.id}`)).json();
    expect(memberIds(after)).toEqual([people[1].id]);
    expect(after.primaryContact.id).toBe(people[1].id);
    await client.post(`/api/crm/contacts/${people[1].id}/erase`, { confirm: true });
    expect((await client.get(`/api/crm/households/${household.id}`)).statusCode).toBe(404);
  });
});
