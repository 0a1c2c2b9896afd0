import { describe, expect, it } from 'vitest';
import { api, setupTestApp } from '../helpers/app.js';
import { newCompany, newPerson } from '../helpers/contacts.factories.js';
import { newContacts } from '../helpers/events.factories.js';
import { newTenant, newUser, type TestTenant } from '../helpers/factories.js';
import { addMembership, newGroup } from '../helpers/groups.factories.js';

const ctx = setupTestApp();

/** Whole years from `dob` to today (UTC, the test tenant's time zone). */
function ageOn(dob: string): number {
  const today = new Date().toISOString().slice(0, 10);
  const years = Number(today.slice(0, 4)) - Number(dob.slice(0, 4));
  return today.slice(5) < dob.slice(5) ? years - 1 : years;
}

const person = async (t: TestTenant, first: string, last: string, extra: Record<string, unknown> = {}) => (await newPerson(ctx, t, first, last, extra)).id as number;

async function household(t: TestTenant, name: string, members: { contactId: number; role: string }[], extra: Record<string, unknown> = {}) {
  const res = await api(ctx.app, t.admin.token).post('/api/crm/households', { name, members, ...extra });
  expect(res.statusCode, res.body).toBe(201);
  return res.json().id as number;
}

/** The Mwangi family (a household with a member known only through a Private group), Peter Mwangi on his own, Anna Müller. */
async function families() {
  const t = await newTenant(ctx);
  const joseph = await person(t, 'Joseph', 'Mwangi', {
    person: { firstName: 'Joseph', lastName: 'Mwangi', dateOfBirth: '1980-05-17' },
    emails: [{ value: 'joseph@example.org' }], addresses: [{ street: '4 Ngong Road', city: 'Nairobi', country: 'Kenya' }],
  });
  const grace = await person(t, 'Grace', 'Wanjiru', { phones: [{ value: '+254 712 345 678' }] });
  const amani = await person(t, 'Amani', 'Mwangi', { person: { firstName: 'Amani', lastName: 'Mwangi', dateOfBirth: '2019-12-31' } });
  const hidden = await person(t, 'Hidden', 'Mwangi');
  const recovery = await newGroup(ctx, t, { name: 'Recovery', privacy: 'Private' });
  await addMembership(ctx, t, recovery, hidden);
  const home = await household(t, 'Mwangi household', [
    { contactId: joseph, role: 'Head' }, { contactId: grace, role: 'Spouse' }, { contactId: amani, role: 'Child' }, { contactId: hidden, role: 'Other' },
  ], { address: { street: '4 Ngong Road', city: 'Nairobi', country: 'Kenya' } });
  const peter = await person(t, 'Peter', 'Mwangi', { phones: [{ value: '0712 999 000' }] });
  const anna = await person(t, 'Anna', 'Müller');
  await person(t, 'Old', 'Mwangi', { status: 'Deceased' });
  await newCompany(ctx, t, 'Mwangi Motors');
  const kiosk = api(ctx.app, (await newUser(ctx, t, 'Check-in')).token);
  return { t, joseph, grace, amani, hidden, home, peter, anna, kiosk };
}

describe('check-in family lookup', () => {
  it('one entry per household with a match (all its reachable members), one per person outside any; names, ages and roles only', async () => {
    const f = await families();
    const res = await f.kiosk.get('/api/attendance/checkins/lookup?q=mw');
    expect(res.statusCode, res.body).toBe(200);
    expect(res.json()).toEqual({
      data: [
        {
          household: { id: f.home, name: 'Mwangi household' },
          people: [
            { id: f.joseph, firstName: 'Joseph', lastName: 'Mwangi', age: ageOn('1980-05-17'), role: 'Head' },
            { id: f.grace, firstName: 'Grace', lastName: 'Wanjiru', age: null, role: 'Spouse' },
            { id: f.amani, firstName: 'Amani', lastName: 'Mwangi', age: ageOn('2019-12-31'), role: 'Child' },
          ],
        },
        { household: null, people: [{ id: f.peter, firstName: 'Peter', lastName: 'Mwangi', age: null, role: null }] },
      ],
    });
    // Nothing else about anyone: no email, phone, address or date of birth anywhere in the answer.
    for (const leak of ['joseph@example.org', '+254 712 345 678', '0712 999 000', 'Ngong', 'Nairobi', '1980-05-17', '2019-12-31', 'Hidden', 'Motors', '"Old"']) expect(res.body).not.toContain(leak);
    for (const entry of res.json().data) {
      expect(Object.keys(entry).sort()).toEqual(['household', 'people']);
      if (entry.household) expect(Object.keys(entry.household).sort()).toEqual(['id', 'name']);
      for (const p of entry.people) expect(Object.keys(p).sort()).toEqual(['age', 'firstName', 'id', 'lastName', 'role']);
    }
  });

  it('matches a last name by case-insensitive prefix with accents folded, and phone digits anywhere in a number', async () => {
    const f = await families();
    const ids = async (q: string) => (await f.kiosk.get(`/api/attendance/checkins/lookup?q=${encodeURIComponent(q)}`)).json().data
      .map((e: { household: { id: number } | null; people: { id: number }[] }) => (e.household ? `h${e.household.id}` : `p${e.people[0].id}`));
    for (const q of ['mu', 'MÜ', 'Mül', 'mull', '  muller ']) expect(await ids(q), q).toEqual([`p${f.anna}`]);
    expect(await ids('MWANGI')).toEqual([`h${f.home}`, `p${f.peter}`]);
    expect(await ids('wanj')).toEqual([`h${f.home}`]);
    expect(await ids('angi')).toEqual([]);
    expect(await ids('345 678')).toEqual([`h${f.home}`]);
    expect(await ids('(0712) 999')).toEqual([`p${f.peter}`]);
    expect(await ids('0712')).toEqual([`p${f.peter}`]);
    expect(await ids('7129')).toEqual([`p${f.peter}`]);
    expect(await ids('5555')).toEqual([]);
    // Another tenant's people are never found.
    const other = await newTenant(ctx);
    await person(other, 'Zawadi', 'Mwangi');
    expect(await ids('mwangi')).toEqual([`h${f.home}`, `p${f.peter}`]);
  });

  it('answers at most 20 entries, in name order', async () => {
    const t = await newTenant(ctx);
    await newContacts(ctx, t, 25, 'Kamau');
    const data = (await api(ctx.app, t.admin.token).get('/api/attendance/checkins/lookup?q=kamau')).json().data;
    expect(data).toHaveLength(20);
    expect(data.map((e: { people: { lastName: string }[] }) => e.people[0].lastName)).toEqual(
      Array.from({ length: 25 }, (_, i) => `Kamau${i}`).sort().slice(0, 20),
    );
  });
});

describe('the family lookup reads matches in two steps', () => {
  it('three full households of 30 first in name order, then 25 people on their own: still the first 20 entries', async () => {
    const t = await newTenant(ctx);
    // Imported with household keys: 90 "Aalto" people in three households of 30, then 25 "Aaltonen" on their own.
    const rows = [
      ...Array.from({ length: 90 }, (_, i) => ({ firstName: `M${String(i).padStart(2, '0')}`, lastName: 'Aalto', householdKey: `aalto-${Math.floor(i / 30)}`, householdRole: 'Other' })),
      ...Array.from({ length: 25 }, (_, i) => ({ firstName: `S${String(i).padStart(2, '0')}`, lastName: 'Aaltonen' })),
    ];
    const imported = await api(ctx.app, t.admin.token).post('/api/crm/contacts/import', { contacts: rows });
    expect(imported.statusCode, imported.body).toBe(200);
    expect(imported.json()).toMatchObject({ created: 115, failed: 0 });
    const answer = (await api(ctx.app, t.admin.token).get('/api/attendance/checkins/lookup?q=aal')).json();
    expect(answer.data).toHaveLength(20);
    expect(answer.data.slice(0, 3).map((e: { people: unknown[] }) => e.people.length)).toEqual([30, 30, 30]);
    expect(answer.data.slice(3).every((e: { household: unknown; people: unknown[] }) => e.household === null && e.people.length === 1)).toBe(true);
    expect(answer.data[19].people[0]).toMatchObject({ firstName: 'S16', lastName: 'Aaltonen' });
  });
});
