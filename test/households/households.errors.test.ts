import { beforeAll, describe, expect, it } from 'vitest';
import { recorded } from '../changes/helpers.js';
import { api, expectError, setupTestApp } from '../helpers/app.js';
import { newCompany, newPerson } from '../helpers/contacts.factories.js';
import { newTenant, type TestTenant } from '../helpers/factories.js';
import { newFamily, newHousehold } from '../helpers/households.factories.js';

const ctx = setupTestApp();

describe('household errors: each its status and message, nothing written', () => {
  let t: TestTenant;
  let client: ReturnType<typeof api>;
  beforeAll(async () => {
    t = await newTenant(ctx);
    client = api(ctx.app, t.admin.token);
  });

  /** The write fails with `status` and records no change. */
  async function refused(write: () => ReturnType<typeof client.post>, status: number): Promise<string> {
    const { result, changes } = await recorded(ctx, t.id, write);
    expect(changes).toEqual([]);
    return expectError(result, status);
  }

  it('a company as a member is 400 "Contact 7 is not a person"', async () => {
    const person = await newPerson(ctx, t, 'Ann', 'Lee');
    const firm = await newCompany(ctx, t, 'Lee Holdings');
    expect(await refused(() => client.post('/api/crm/households', { members: [{ contactId: person.id, role: 'Head' }, { contactId: firm.id, role: 'Other' }] }), 400))
      .toBe(`Contact ${firm.id} is not a person`);
    const { household } = await newFamily(ctx, t, 'Lee', ['Head']);
    expect(await refused(() => client.post(`/api/crm/households/${household.id}/members`, { contactId: firm.id, role: 'Other' }), 400)).toBe(`Contact ${firm.id} is not a person`);
    expect((await client.get(`/api/crm/contacts/${person.id}`)).json().household).toBeNull();
  });

  it('a contact already in a household is 409 "Contact 7 already belongs to household 3", on create and on add (same household too)', async () => {
    const { household, people } = await newFamily(ctx, t, 'Kim', ['Head', 'Spouse']);
    const other = await newPerson(ctx, t, 'Jo', 'Park');
    expect(await refused(() => client.post('/api/crm/households', { members: [{ contactId: other.id, role: 'Head' }, { contactId: people[1].id, role: 'Spouse' }] }), 409))
      .toBe(`Contact ${people[1].id} already belongs to household ${household.id}`);
    const { household: park } = await newFamily(ctx, t, 'Park', ['Head']);
    expect(await refused(() => client.post(`/api/crm/households/${park.id}/members`, { contactId: people[0].id, role: 'Head' }), 409))
      .toBe(`Contact ${people[0].id} already belongs to household ${household.id}`);
    expect(await refused(() => client.post(`/api/crm/households/${household.id}/members`, { contactId: people[0].id, role: 'Head' }), 409))
      .toBe(`Contact ${people[0].id} already belongs to household ${household.id}`);
    expect((await client.get(`/api/crm/contacts/${other.id}`)).json().household).toBeNull();
  });

  it('a primaryContactId that is not a member is 400 "Contact 7 is not a member of household 3"', async () => {
    const { household } = await newFamily(ctx, t, 'Diaz', ['Head']);
    const outsider = await newPerson(ctx, t, 'Eli', 'Cruz');
    expect(await refused(() => client.put(`/api/crm/households/${household.id}`, { name: 'Renamed', primaryContactId: outsider.id }), 400))
      .toBe(`Contact ${outsider.id} is not a member of household ${household.id}`);
    expect((await client.get(`/api/crm/households/${household.id}`)).json().name).toBe('Diaz household');
  });

  it('a 31st member is 409; 31 in one create is 400', async () => {
    const people: { id: number }[] = [];
    for (let i = 0; i < 31; i++) people.push(await newPerson(ctx, t, `P${i}`, 'Many'));
    const h = await newHousehold(ctx, t, { members: people.slice(0, 30).map((p, i) => ({ contactId: p.id, role: i === 0 ? 'Head' : 'Child' })) });
    expect(h.members).toHaveLength(30);
    expect(await refused(() => client.post(`/api/crm/households/${h.id}/members`, { contactId: people[30].id, role: 'Other' }), 409)).toMatch(/30 members/);
    await refused(() => client.post('/api/crm/households', { members: people.map((p) => ({ contactId: p.id, role: 'Other' })) }), 400);
  });

  it('an unknown role, no members, a member listed twice, a blank name: 400', async () => {
    const p = await newPerson(ctx, t, 'Uma', 'Roy');
    expect(await refused(() => client.post('/api/crm/households', { members: [{ contactId: p.id, role: 'Cousin' }] }), 400)).toMatch(/role/);
    await refused(() => client.post('/api/crm/households', { members: [] }), 400);
    await refused(() => client.post('/api/crm/households', { name: 'X' }), 400);
    expect(await refused(() => client.post('/api/crm/households', { members: [{ contactId: p.id, role: 'Head' }, { contactId: p.id, role: 'Other' }] }), 400)).toMatch(new RegExp(`${p.id} twice`));
    await refused(() => client.post('/api/crm/households', { name: '', members: [{ contactId: p.id, role: 'Head' }] }), 400);
    const { household, people } = await newFamily(ctx, t, 'Roy', ['Head']);
    await refused(() => client.put(`/api/crm/households/${household.id}/members/${people[0].id}`, { role: 'Boss' }), 400);
    await refused(() => client.post(`/api/crm/households/${household.id}/members`, { contactId: p.id, role: 'boss' }), 400);
    await refused(() => client.put(`/api/crm/households/${household.id}`, { givingTogether: 'sometimes' }), 400);
  });

  it('unknown ids are 404: household, contact, and a contact that is not a member', async () => {
    const p = await newPerson(ctx, t, 'Ola', 'Nwosu');
    expect(await refused(() => client.post('/api/crm/households', { members: [{ contactId: 999999, role: 'Head' }] }), 404)).toBe('Contact with id 999999 not found');
    expect(await refused(() => client.post('/api/crm/households/999999/members', { contactId: p.id, role: 'Head' }), 404)).toBe('Household with id 999999 not found');
    expectError(await client.get('/api/crm/households/999999'), 404);
    await refused(() => client.put('/api/crm/households/999999', { name: 'X' }), 404);
    await refused(() => client.delete('/api/crm/households/999999'), 404);
    const { household } = await newFamily(ctx, t, 'Nwosu', ['Head']);
    expect(await refused(() => client.put(`/api/crm/households/${household.id}/members/${p.id}`, { role: 'Child' }), 404)).toBe(`Contact ${p.id} is not a member of household ${household.id}`);
    expect(await refused(() => client.delete(`/api/crm/households/${household.id}/members/${p.id}`), 404)).toBe(`Contact ${p.id} is not a member of household ${household.id}`);
    expectError(await client.get('/api/crm/households/abc'), 400);
  });

  it('a householdId filter naming nothing is an empty page', async () => {
    const res = await client.get('/api/crm/contacts?householdId=999999');
    expect(res.statusCode).toBe(200);
    expect(res.json()).toMatchObject({ data: [], total: 0 });
  });
});
