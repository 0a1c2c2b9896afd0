import { beforeAll, describe, expect, it } from 'vitest';
import { api, setupTestApp } from '../helpers/app.js';
import { newTenant, newUser, type TestTenant } from '../helpers/factories.js';
import { addMembership, categoryId, newContact, newGroup, type TestGroup } from '../helpers/groups.factories.js';
import { recorded } from './helpers.js';

/** A write that fails (validation, missing reference, conflict, permission) leaves no change behind. */
describe('no change for a failed write', () => {
  const ctx = setupTestApp();
  let t: TestTenant;
  let other: TestTenant;
  let group: TestGroup;
  let contactId: number;
  let eventId: number;
  beforeAll(async () => {
    t = await newTenant(ctx);
    other = await newTenant(ctx);
    group = await newGroup(ctx, t, { name: 'Fellowship' });
    contactId = await newContact(ctx, t);
    eventId = (await api(ctx.app, t.admin.token).post('/api/events', { name: 'E', startDate: '2026-03-02' })).json().id;
  });

  it('validation 400, unknown or foreign reference 404, conflict 409, permission 403: nothing recorded', async () => {
    const admin = api(ctx.app, t.admin.token);
    const foreignContact = await newContact(ctx, other);
    const reader = await newUser(ctx, t, ['contacts:read']);
    const catId = await categoryId(ctx, t, 'Fellowship');
    await addMembership(ctx, t, group, contactId, 'Member');
    const linked = await newUser(ctx, t, 'Member');
    const attempts: [string, () => Promise<{ statusCode: number }>, number][] = [
      ['contact without person', () => admin.post('/api/crm/contacts', { category: 'Person' }), 400],
      ['contact bad status', () => admin.put(`/api/crm/contacts/${contactId}`, { status: 'Nope' }), 400],
      ['contact bad emailOptOut', () => admin.put(`/api/crm/contacts/${contactId}`, { emailOptOut: 'yes' }), 400],
      ['contact missing', () => admin.put('/api/crm/contacts/999999999', { status: 'Inactive' }), 404],
      ['contact of another tenant', () => admin.put(`/api/crm/contacts/${foreignContact}`, { status: 'Inactive' }), 404],
      ['contact linked to a user', () => admin.delete(`/api/crm/contacts/${linked.contactId}`), 409],
      ['contact without permission', () => api(ctx.app, reader.token).post('/api/crm/contacts', { category: 'Person', person: { firstName: 'A', lastName: 'B' } }), 403],
      ['request for a foreign contact', () => admin.post('/api/crm/requests', { contactId: foreignContact, type: 'Prayer', description: 'x' }), 404],
      ['relationship to a foreign contact', () => admin.post('/api/crm/relationships', { contactId, relatedContactId: foreignContact, type: 'Friend' }), 404],
      ['membership twice', () => admin.post('/api/groups/membership', { groupId: group.id, contactId }), 409],
      ['group with unknown category', () => admin.post('/api/groups', { name: 'X', categoryId: 999999999 }), 404],
      ['group without a name', () => admin.post('/api/groups', { categoryId: catId }), 400],
      ['event ending before it starts', () => admin.post('/api/events', { name: 'E', startDate: '2026-03-02', endDate: '2026-03-01' }), 400],
      ['activity for a foreign contact', () => admin.post(`/api/events/${eventId}/activities`, { activityType: 'Salvation', contactIds: [contactId, foreignContact] }), 404],
      ['event of another group than visible', () => admin.put(`/api/events/${eventId}`, { groupId: 999999999 }), 404],
      ['role name taken', () => admin.post('/api/roles', { name: 'Member', permissions: [] }), 409],
      ['user name taken', () => admin.post('/api/users', { username: 'admin', password: 'long enough password', firstName: 'A', lastName: 'B' }), 409],
      ['the last admin disabling itself', () => admin.put(`/api/users/${t.admin.id}`, { status: 'Disabled' }), 403],
    ];
    for (const [what, attempt, status] of attempts) {
      const { result, changes } = await recorded(ctx, t.id, attempt);
      expect(result.statusCode, what).toBe(status);
      expect(changes, what).toEqual([]);
    }
  });

  it('an import with only invalid rows records nothing', async () => {
    const { result, changes } = await recorded(ctx, t.id, () => api(ctx.app, t.admin.token).post('/api/crm/contacts/import', { contacts: [{ lastName: 'x' }, { firstName: 'y' }] }));
    expect(result.json()).toMatchObject({ created: 0, updated: 0, failed: 2 });
    expect(changes).toEqual([]);
  });
});
