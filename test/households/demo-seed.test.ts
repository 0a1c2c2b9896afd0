import { expect, it } from 'vitest';
import { addDays, todayIn } from '../../src/lib/periods.js';
import { seedDemoTenant } from '../../src/provisioning/demo-seed.js';
import { api, setupTestApp } from '../helpers/app.js';
import { tokenFor } from '../helpers/factories.js';

const ctx = setupTestApp();

it('the demo tenant has couples who give together (both with gifts) and a family whose children are in the kids\' check-in rooms', async () => {
  const { tenant, admin } = await seedDemoTenant(ctx.db, 'demo-password-123');
  const http = api(ctx.app, tokenFor(ctx, tenant.id, admin.id));
  const list = (await http.get('/api/crm/households')).json();
  expect(list.data.map((h: { name: string; givingTogether: boolean; members: unknown[] }) => [h.name, h.givingTogether, h.members.length])).toEqual([
    ['Mwangi household', true, 2], ['Otieno household', false, 5], ['Ssempala household', true, 2],
  ]);

  // Each giving-together household's statement of the last 90 days has gifts of both spouses.
  const today = todayIn('UTC');
  for (const h of list.data.filter((x: { givingTogether: boolean }) => x.givingTogether)) {
    const res = await http.get(`/api/finance/statements/households/${h.id}?from=${addDays(today, -90)}&to=${today}`);
    expect(res.statusCode, res.body).toBe(200);
    const givers = new Set(res.json().lines.map((l: { giver: { id: number } }) => l.giver.id));
    expect([...givers].sort(), h.name).toEqual(h.members.map((m: { contact: { id: number } }) => m.contact.id).sort());
  }

  // A kiosk finds the family by the start of its name: ages and roles, the children young enough for the kids' rooms.
  const lookup = (await http.get('/api/attendance/checkins/lookup?q=oti')).json();
  expect(lookup.data).toHaveLength(1);
  expect(lookup.data[0].household.name).toBe('Otieno household');
  expect(lookup.data[0].people.map((p: { firstName: string; role: string; age: number | null }) => [p.firstName, p.role, p.age])).toEqual([
    ['Peter', 'Head', null], ['Deborah', 'Spouse', null], ['Amani', 'Child', 2], ['Baraka', 'Child', 5], ['Zawadi', 'Child', 8],
  ]);
  const rooms = (await http.get('/api/groups?limit=100')).json().data.filter((g: { name: string }) => /^(Nursery|Preschool|Kids Church)/.test(g.name));
  expect(rooms).toHaveLength(3);
  const inRooms: string[] = [];
  for (const room of rooms) {
    const members = (await http.get(`/api/groups/membership?groupId=${room.id}`)).json();
    inRooms.push(...members.data.map((m: { contactId: number }) => lookup.data[0].people.find((p: { id: number }) => p.id === m.contactId)?.firstName));
  }
  expect(inRooms.sort()).toEqual(['Amani', 'Baraka', 'Zawadi']);
}, 120_000);
