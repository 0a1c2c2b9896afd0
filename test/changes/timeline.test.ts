import { beforeAll, describe, expect, it } from 'vitest';
import { recordChanges, type NewChange } from '../../src/changes/recorder.js';
import { withTenant } from '../../src/db/client.js';
import { summarize } from '../../src/modules/changes/timeline.summaries.js';
import { api, expectError, setupTestApp } from '../helpers/app.js';
import { newTenant, newUser, type TestTenant, type TestUser } from '../helpers/factories.js';
import { newContact, newGroup, type TestGroup } from '../helpers/groups.factories.js';

/** GET /api/crm/contacts/:id/timeline (modules-contract §7), built from the change feed. */
describe('contact timeline', () => {
  const ctx = setupTestApp();
  let t: TestTenant;
  let b: TestTenant;
  let group: TestGroup;
  let contactId: number;
  let reader: TestUser;
  let everything: TestUser;
  const record = (tenantId: number, items: NewChange[]) => withTenant(ctx.db, tenantId, (tx) => recordChanges(tx, { tenantId, userId: null }, items));

  beforeAll(async () => {
    t = await newTenant(ctx);
    b = await newTenant(ctx);
    reader = await newUser(ctx, t, ['contacts:read', 'groups:read', 'events:read', 'attendance:read']);
    everything = await newUser(ctx, t, ['contacts:read', 'groups:read', 'events:read', 'attendance:read', 'finance:read', 'tasks:read', 'care:read']);
    group = await newGroup(ctx, t, { name: 'Riverside Fellowship' });
    const admin = api(ctx.app, t.admin.token);
    contactId = (await admin.post('/api/crm/contacts', { category: 'Person', person: { firstName: 'Tim', lastName: 'Line' } })).json().id;
    await admin.put(`/api/crm/contacts/${contactId}`, { status: 'Inactive' });
    await admin.post('/api/groups/membership', { groupId: group.id, contactId });
    const event = (await admin.post('/api/events', { name: 'Easter Crusade', startDate: '2026-04-05', groupId: group.id })).json().id;
    await admin.post(`/api/events/${event}/activities`, { activityType: 'Salvation', contactIds: [contactId] });
    await admin.post('/api/crm/requests', { contactId, type: 'Counseling', description: 'Private matter' });
    await admin.post('/api/crm/requests', { contactId, type: 'Prayer', description: 'Exams' });
    // What later modules record (attendance, tasks, finance), by the same convention.
    await record(t.id, [
      { type: 'attendance.first_visit', entityId: 501, data: { contactId, eventName: 'Sunday Service' } },
      { type: 'task.created', entityId: 601, data: { contactId, title: 'Call Tim' } },
      { type: 'contribution.created', entityId: 701, data: { contactId, amount: 5000, fundName: 'Building' } },
    ]);
    // Someone else's change does not show.
    const otherContact = await newContact(ctx, t, 'Other', 'Person');
    await admin.post('/api/groups/membership', { groupId: group.id, contactId: otherContact });
  });

  const timeline = (user: { token: string }, id = contactId, query = '') => api(ctx.app, user.token).get(`/api/crm/contacts/${id}/timeline${query}`);

  it('merges the contact\'s own changes and every change naming it, newest first, with a summary per type', async () => {
    const res = await timeline(everything, contactId, '?limit=100');
    expect(res.statusCode).toBe(200);
    const body = res.json();
    expect(body.data.map((i: { type: string }) => i.type)).toEqual([
      'contribution.created', 'task.created', 'attendance.first_visit', 'request.created', 'request.created',
      'event.activity_recorded', 'membership.created', 'contact.status_changed', 'contact.updated', 'contact.created',
    ]);
    expect(body.total).toBe(10);
    const summary = (type: string) => body.data.filter((i: { type: string }) => i.type === type).map((i: { summary: string }) => i.summary);
    expect(summary('membership.created')).toEqual(['Joined Riverside Fellowship as Member']);
    expect(summary('attendance.first_visit')).toEqual(['First visit: Sunday Service']);
    expect(summary('event.activity_recorded')).toEqual(['Salvation at Easter Crusade']);
    expect(summary('contact.status_changed')).toEqual(['Status changed from Active to Inactive']);
    expect(summary('contact.created')).toEqual(['Added to the directory']);
    expect(summary('request.created')).toEqual(['Prayer request made', 'Counseling request made']);
    expect(summary('task.created')).toEqual(['Task created: Call Tim']);
    expect(summary('contribution.created')).toEqual(['Gave to Building']);
    const item = body.data.find((i: { type: string }) => i.type === 'membership.created');
    expect(item).toEqual({ at: expect.stringMatching(/Z$/), type: 'membership.created', summary: expect.any(String), entity: { type: 'membership', id: expect.any(Number) } });
    expect(body.data.find((i: { type: string }) => i.type === 'contact.created').entity).toEqual({ type: 'contact', id: contactId });
  });

  it('pages', async () => {
    const page = (await timeline(everything, contactId, '?limit=3&page=2')).json();
    expect(page).toMatchObject({ total: 10, page: 2, limit: 3 });
    expect(page.data.map((i: { type: string }) => i.type)).toEqual(['request.created', 'request.created', 'event.activity_recorded']);
    expect((await timeline(everything, contactId, '?page=50')).json()).toMatchObject({ data: [], total: 10 });
  });

  it('leaves out what the caller may not read: giving without finance:read, tasks without tasks:read, confidential items without care:read', async () => {
    const body = (await timeline(reader, contactId, '?limit=100')).json();
    const types = body.data.map((i: { type: string }) => i.type);
    expect(types).not.toContain('contribution.created');
    expect(types).not.toContain('task.created');
    expect(body.data.filter((i: { type: string }) => i.type === 'request.created').map((i: { summary: string }) => i.summary)).toEqual(['Prayer request made']);
    expect(body.total).toBe(7);
    // contacts:read alone: the contact's own changes and its (not confidential) requests.
    const contactsOnly = await newUser(ctx, t, ['contacts:read']);
    const own = (await timeline(contactsOnly, contactId, '?limit=100')).json();
    expect(own.data.map((i: { type: string }) => i.type)).toEqual(['request.created', 'contact.status_changed', 'contact.updated', 'contact.created']);
  });

  it('401 without a token, 403 without contacts:read, 404 for an unknown contact or another tenant\'s', async () => {
    expectError(await api(ctx.app).get(`/api/crm/contacts/${contactId}/timeline`), 401);
    const none = await newUser(ctx, t, ['groups:read']);
    expectError(await timeline(none), 403);
    expectError(await timeline(reader, 999999999), 404);
    expectError(await timeline(b.admin, contactId), 404);
    expectError(await timeline(reader, contactId, '?limit=0'), 400);
    // Tenant B's own contact with the same changes shows only B's.
    const bContact = await newContact(ctx, b, 'B', 'Person');
    await record(b.id, [{ type: 'attendance.first_visit', entityId: 1, data: { contactId: bContact, eventName: 'B service' } }]);
    const bTimeline = (await timeline(b.admin, bContact)).json();
    expect(bTimeline.data.map((i: { summary: string }) => i.summary)).toEqual(['First visit: B service']);
  });

  it('every change type has a summary; unknown shapes fall back to the type\'s description', () => {
    expect(summarize({ type: 'report.missing', data: { groupName: 'Zone A' }, changes: null })).toBe('A group has not submitted its weekly report: Zone A');
    expect(summarize({ type: 'webhook.test', data: {}, changes: null })).toBe('A test delivery asked for by an administrator');
    expect(summarize({ type: 'membership.updated', data: { groupName: 'Riverside' }, changes: { role: { from: 'Member', to: 'Leader' } } })).toBe('Now Leader in Riverside');
    expect(summarize({ type: 'membership.deleted', data: { groupName: 'Riverside' }, changes: null })).toBe('Left Riverside');
    expect(summarize({ type: 'contact.updated', data: {}, changes: { 'person.lastName': { from: 'a', to: 'b' }, emails: { from: [], to: [] } } })).toBe('Details updated (lastName, emails)');
  });
});
