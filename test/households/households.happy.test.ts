import { beforeAll, describe, expect, it } from 'vitest';
import { recorded } from '../changes/helpers.js';
import { api, setupTestApp } from '../helpers/app.js';
import { newPerson } from '../helpers/contacts.factories.js';
import { newTenant, type TestTenant } from '../helpers/factories.js';
import { newFamily, newHousehold } from '../helpers/households.factories.js';

const ctx = setupTestApp();

describe('households', () => {
  let t: TestTenant;
  beforeAll(async () => {
    t = await newTenant(ctx);
  });

  it('creates a household: default name and primary contact from the first Head, members in joining order, household.created alone', async () => {
    const child = await newPerson(ctx, t, 'Amani', 'Mwangi', { person: { firstName: 'Amani', lastName: 'Mwangi', dateOfBirth: '2018-04-02' } });
    const head = await newPerson(ctx, t, 'Joseph', 'Mwangi');
    const spouse = await newPerson(ctx, t, 'Grace', 'Wanjiru');
    const { result: res, changes } = await recorded(ctx, t.id, () => api(ctx.app, t.admin.token).post('/api/crm/households', {
      address: { street: '12 Riverside Drive', city: 'Nairobi', country: 'KE' },
      givingTogether: true,
      members: [{ contactId: child.id, role: 'Child' }, { contactId: head.id, role: 'Head' }, { contactId: spouse.id, role: 'Spouse' }],
    }));
    expect(res.statusCode, res.body).toBe(201);
    const h = res.json();
    expect(h).toMatchObject({
      name: 'Mwangi household',
      address: { street: '12 Riverside Drive', city: 'Nairobi', country: 'KE' },
      givingTogether: true,
      primaryContact: { id: head.id, firstName: 'Joseph', lastName: 'Mwangi' },
      members: [
        { contact: { id: child.id, firstName: 'Amani', lastName: 'Mwangi', dateOfBirth: '2018-04-02' }, role: 'Child' },
        { contact: { id: head.id, firstName: 'Joseph', lastName: 'Mwangi', dateOfBirth: null }, role: 'Head' },
        { contact: { id: spouse.id, firstName: 'Grace', lastName: 'Wanjiru', dateOfBirth: null }, role: 'Spouse' },
      ],
    });
    expect(typeof h.createdAt).toBe('string');
    expect(changes.map((c) => c.type)).toEqual(['household.created']);
    expect(changes[0]).toMatchObject({ entityType: 'household', entityId: h.id, data: { members: [{ contactId: child.id, role: 'Child' }, { contactId: head.id, role: 'Head' }, { contactId: spouse.id, role: 'Spouse' }] } });
    expect((await api(ctx.app, t.admin.token).get(`/api/crm/households/${h.id}`)).json()).toEqual(h);
  });

  it('without a Head the first member is primary and names the household; an explicit name wins; no address is null', async () => {
    const a = await newPerson(ctx, t, 'Lena', 'Okafor');
    const b = await newPerson(ctx, t, 'Tobi', 'Adeyemi');
    const h = await newHousehold(ctx, t, { members: [{ contactId: a.id, role: 'Other' }, { contactId: b.id, role: 'Child' }] });
    expect(h).toMatchObject({ name: 'Okafor household', address: null, givingTogether: false, primaryContact: { id: a.id } });
    const c = await newPerson(ctx, t, 'Sam', 'Okafor');
    const named = await newHousehold(ctx, t, { name: 'The Okafor-Smiths', members: [{ contactId: c.id, role: 'Head' }] });
    expect(named.name).toBe('The Okafor-Smiths');
  });

  it('updates name, address, givingTogether and primary contact, recording household.updated with the diff', async () => {
    const { household, people } = await newFamily(ctx, t, 'Banda', ['Head', 'Spouse']);
    const client = api(ctx.app, t.admin.token);
    const { result: res, changes } = await recorded(ctx, t.id, () => client.put(`/api/crm/households/${household.id}`, {
      name: 'Banda family', address: { city: 'Lilongwe' }, givingTogether: true, primaryContactId: people[1].id,
    }));
    expect(res.statusCode, res.body).toBe(200);
    expect(res.json()).toMatchObject({ name: 'Banda family', address: { street: null, city: 'Lilongwe', country: null }, givingTogether: true, primaryContact: { id: people[1].id } });
    expect(changes.map((c) => c.type)).toEqual(['household.updated']);
    expect(changes[0].changes).toEqual({
      name: { from: 'Banda household', to: 'Banda family' },
      address: { from: null, to: { street: null, city: 'Lilongwe', country: null } },
      givingTogether: { from: false, to: true },
      primaryContactId: { from: people[0].id, to: people[1].id },
    });
    // The same values again change nothing and record nothing.
    const again = await recorded(ctx, t.id, () => client.put(`/api/crm/households/${household.id}`, { name: 'Banda family', givingTogether: true }));
    expect(again.result.statusCode).toBe(200);
    expect(again.changes).toEqual([]);
    const cleared = await client.put(`/api/crm/households/${household.id}`, { address: null });
    expect(cleared.json().address).toBeNull();
  });

  it('adds, re-roles and removes members; the primary contact is recomputed when it leaves; the last removal deletes the household', async () => {
    const { household, people } = await newFamily(ctx, t, 'Phiri', ['Head', 'Spouse']);
    const client = api(ctx.app, t.admin.token);
    const kid = await newPerson(ctx, t, 'Chisomo', 'Phiri');
    const added = await recorded(ctx, t.id, () => client.post(`/api/crm/households/${household.id}/members`, { contactId: kid.id, role: 'Child' }));
    expect(added.result.statusCode, added.result.body).toBe(201);
    expect(added.result.json().members.map((m: { contact: { id: number } }) => m.contact.id)).toEqual([people[0].id, people[1].id, kid.id]);
    expect(added.changes.map((c) => [c.type, c.data.contactId, c.data.role])).toEqual([['household.member_added', kid.id, 'Child']]);

    const reroled = await recorded(ctx, t.id, () => client.put(`/api/crm/households/${household.id}/members/${kid.id}`, { role: 'Other' }));
    expect(reroled.result.statusCode).toBe(200);
    expect(reroled.result.json().members[2].role).toBe('Other');
    expect(reroled.changes.map((c) => [c.type, c.data.contactId, c.data.role, c.changes])).toEqual([['household.member_updated', kid.id, 'Other', { role: { from: 'Child', to: 'Other' } }]]);

    // The Head (primary) leaves: no Head remains, so the first member is primary.
    const left = await recorded(ctx, t.id, () => client.delete(`/api/crm/households/${household.id}/members/${people[0].id}`));
    expect(left.result.statusCode).toBe(204);
    expect(left.changes.map((c) => c.type)).toEqual(['household.member_removed', 'household.updated']);
    expect(left.changes[0].data).toMatchObject({ contactId: people[0].id, role: 'Head' });
    expect(left.changes[1].changes).toEqual({ primaryContactId: { from: people[0].id, to: people[1].id } });
    expect((await client.get(`/api/crm/households/${household.id}`)).json().primaryContact.id).toBe(people[1].id);

    await client.delete(`/api/crm/households/${household.id}/members/${people[1].id}`);
    const last = await recorded(ctx, t.id, () => client.delete(`/api/crm/households/${household.id}/members/${kid.id}`));
    expect(last.changes.map((c) => c.type)).toEqual(['household.member_removed', 'household.deleted']);
    expect((await client.get(`/api/crm/households/${household.id}`)).statusCode).toBe(404);
    expect((await client.get(`/api/crm/contacts/${kid.id}`)).statusCode).toBe(200);
  });

  it('DELETE removes the household, never its people, recording household.deleted with its members', async () => {
    const { household, people } = await newFamily(ctx, t, 'Tembo', ['Head', 'Child']);
    const client = api(ctx.app, t.admin.token);
    const { result, changes } = await recorded(ctx, t.id, () => client.delete(`/api/crm/households/${household.id}`));
    expect(result.statusCode).toBe(204);
    expect(changes.map((c) => c.type)).toEqual(['household.deleted']);
    expect(changes[0].data.members).toEqual([{ contactId: people[0].id, role: 'Head' }, { contactId: people[1].id, role: 'Child' }]);
    for (const p of people) expect((await client.get(`/api/crm/contacts/${p.id}`)).statusCode).toBe(200);
    // Free again: they can join another household.
    await newHousehold(ctx, t, { members: [{ contactId: people[0].id, role: 'Head' }] });
  });

  it('lists by name with q over the household name and member names (accents and case folded)', async () => {
    const t2 = await newTenant(ctx);
    const zoe = await newPerson(ctx, t2, 'Zoë', 'Ndlovu');
    const max = await newPerson(ctx, t2, 'Max', 'Abara');
    const eve = await newPerson(ctx, t2, 'Eve', 'Cole');
    const h1 = await newHousehold(ctx, t2, { members: [{ contactId: zoe.id, role: 'Head' }] });
    const h2 = await newHousehold(ctx, t2, { members: [{ contactId: max.id, role: 'Head' }, { contactId: eve.id, role: 'Spouse' }] });
    const client = api(ctx.app, t2.admin.token);
    const all = (await client.get('/api/crm/households')).json();
    expect(all).toMatchObject({ total: 2, page: 1, limit: 20 });
    expect(all.data.map((h: { id: number }) => h.id)).toEqual([h2.id, h1.id]);
    const names = async (q: string) => (await client.get(`/api/crm/households?q=${encodeURIComponent(q)}`)).json().data.map((h: { name: string }) => h.name);
    expect(await names('NDLO')).toEqual(['Ndlovu household']);
    expect(await names('zoe')).toEqual(['Ndlovu household']);
    expect(await names('eve cole')).toEqual(['Abara household']);
    expect(await names('nobody')).toEqual([]);
    const page2 = (await client.get('/api/crm/households?limit=1&page=2')).json();
    expect(page2).toMatchObject({ total: 2, page: 2, limit: 1 });
    expect(page2.data[0].id).toBe(h1.id);
  });
});
