import { describe, expect, it } from 'vitest';
import { api, setupTestApp } from '../helpers/app.js';
import { changesOf, countOf, newSession } from '../helpers/attendance.factories.js';
import { newContacts, newEvent } from '../helpers/events.factories.js';
import { newTenant } from '../helpers/factories.js';
import { newGroup } from '../helpers/groups.factories.js';

const ctx = setupTestApp();

describe('first visits', () => {
  it('exactly one first record per contact under concurrent posts through different sessions and sources', async () => {
    const t = await newTenant(ctx);
    const g = await newGroup(ctx, t, { name: 'Fellowship' });
    const s1 = await newSession(ctx, t, { groupId: g.id }, '2026-07-01');
    const s2 = await newSession(ctx, t, { groupId: g.id }, '2026-07-08');
    const event = await newEvent(ctx, t, { groupId: g.id, startDate: '2026-07-04' });
    const people = await newContacts(ctx, t, 5, 'Newcomer');
    const admin = api(ctx.app, t.admin.token);
    for (const id of people) {
      const results = await Promise.all([
        admin.post(`/api/attendance/sessions/${s1.id}/records`, { contactIds: [id] }),
        admin.post(`/api/attendance/sessions/${s2.id}/records`, { contactIds: [id] }),
        admin.post(`/api/events/${event.id}/attendance`, { contactIds: [id] }),
      ]);
      expect(results.map((r) => r.statusCode)).toEqual([201, 201, 201]);
    }
    const feed = (await admin.get('/api/attendance/records?limit=100')).json();
    expect(feed.total).toBe(15);
    for (const id of people) {
      const mine = feed.data.filter((r: { contact: { id: number } }) => r.contact.id === id);
      expect(mine).toHaveLength(3);
      expect(mine.filter((r: { isFirstTime: boolean }) => r.isFirstTime)).toHaveLength(1);
    }
    const firsts = await changesOf(ctx, t, 'attendance.first_visit');
    expect(firsts.map((c) => c.data.contactId).sort()).toEqual([...people].sort());
    expect(await countOf(ctx, t, 'contact_first_visits')).toBe(5);
    const first = feed.data.find((r: { isFirstTime: boolean; contact: { id: number } }) => r.isFirstTime && r.contact.id === people[0]);
    expect(firsts.find((c) => c.data.contactId === people[0])!.entity_id).toBe(first.id);
  });
});
