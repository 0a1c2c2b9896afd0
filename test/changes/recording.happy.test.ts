import { beforeAll, describe, expect, it } from 'vitest';
import { api, setupTestApp } from '../helpers/app.js';
import { newTenant, newUser, PASSWORD, type TestTenant } from '../helpers/factories.js';
import { categoryId, newContact, newGroup, type TestGroup } from '../helpers/groups.factories.js';
import { roleId } from '../helpers/users.factories.js';
import { recorded, storedChanges } from './helpers.js';

/** modules-contract §7: every write records its changes in its own transaction, with actor, diff and data.contactId/groupId. */
describe('changes recorded by every write', () => {
  const ctx = setupTestApp();
  let t: TestTenant;
  let fellowship: TestGroup;
  beforeAll(async () => {
    t = await newTenant(ctx);
    fellowship = await newGroup(ctx, t, { name: 'Riverside Fellowship' });
  });
  const admin = () => api(ctx.app, t.admin.token);

  it('contacts: created, updated with field-level from/to, status_changed besides updated, deleted; emailOptOut is recorded', async () => {
    const created = await recorded(ctx, t.id, () => admin().post('/api/crm/contacts', { category: 'Person', person: { firstName: 'Ada', lastName: 'Byron' }, emails: [{ value: 'ada@example.org' }] }));
    expect(created.result.statusCode).toBe(201);
    const id = created.result.json().id;
    expect(created.changes).toMatchObject([{ type: 'contact.created', entityType: 'contact', entityId: id, actorUserId: t.admin.id, changes: null, data: { contactId: id, category: 'Person', status: 'Active' } }]);

    const updated = await recorded(ctx, t.id, () =>
      admin().put(`/api/crm/contacts/${id}`, { status: 'Inactive', emailOptOut: true, person: { lastName: 'Lovelace', firstName: 'Ada' }, emails: [{ value: 'ada@lovelace.org' }] }));
    expect(updated.result.statusCode).toBe(200);
    expect(updated.changes.map((c) => c.type)).toEqual(['contact.updated', 'contact.status_changed']);
    expect(updated.changes[0]).toMatchObject({ entityId: id, actorUserId: t.admin.id, data: { contactId: id } });
    // Only what differs: firstName was sent unchanged.
    expect(updated.changes[0].changes).toEqual({
      status: { from: 'Active', to: 'Inactive' },
      emailOptOut: { from: false, to: true },
      'person.lastName': { from: 'Byron', to: 'Lovelace' },
      emails: { from: [{ value: 'ada@example.org', isPrimary: true }], to: [{ value: 'ada@lovelace.org', isPrimary: true }] },
    });
    expect(updated.changes[1]).toMatchObject({ type: 'contact.status_changed', entityId: id, changes: null, data: { contactId: id, from: 'Active', to: 'Inactive' } });

    const same = await recorded(ctx, t.id, () => admin().put(`/api/crm/contacts/${id}`, { status: 'Inactive' }));
    expect(same.result.statusCode).toBe(200);
    expect(same.changes).toEqual([]);

    const deleted = await recorded(ctx, t.id, () => admin().delete(`/api/crm/contacts/${id}`));
    expect(deleted.result.statusCode).toBe(204);
    expect(deleted.changes).toMatchObject([{ type: 'contact.deleted', entityId: id, actorUserId: t.admin.id, data: { contactId: id } }]);
  });

  it('contacts import: one change per created or updated contact, updates with from/to', async () => {
    const existing = await newContact(ctx, t, 'Old', 'Name');
    await admin().put(`/api/crm/contacts/${existing}`, { emails: [{ value: 'old.name@example.org' }] });
    const { result, changes } = await recorded(ctx, t.id, () =>
      admin().post('/api/crm/contacts/import', { contacts: [
        { firstName: 'New', lastName: 'One', email: 'new.one@example.org' },
        { firstName: 'Renamed', lastName: 'Name', email: 'OLD.NAME@example.org' },
        { firstName: 'New', lastName: 'Two' },
        { lastName: 'no first name' },
      ] }));
    expect(result.json()).toMatchObject({ created: 2, updated: 1, failed: 1 });
    expect(changes.map((c) => c.type).sort()).toEqual(['contact.created', 'contact.created', 'contact.updated']);
    expect(changes.every((c) => c.actorUserId === t.admin.id && c.data.contactId === c.entityId)).toBe(true);
    expect(changes.find((c) => c.type === 'contact.updated')).toMatchObject({ entityId: existing, changes: { firstName: { from: 'Old', to: 'Renamed' } } });
  });

  it('relationships (one change per direction, so both timelines show it) and requests (confidential types marked)', async () => {
    const a = await newContact(ctx, t, 'Ann', 'A');
    const b = await newContact(ctx, t, 'Ben', 'B');
    const rel = await recorded(ctx, t.id, () => admin().post('/api/crm/relationships', { contactId: a, relatedContactId: b, type: 'Parent' }));
    expect(rel.result.statusCode).toBe(201);
    expect(rel.changes).toMatchObject([
      { type: 'relationship.created', entityId: rel.result.json().id, data: { contactId: a, relatedContactId: b, relationshipType: 'Parent' } },
      { type: 'relationship.created', data: { contactId: b, relatedContactId: a, relationshipType: 'Child' } },
    ]);
    const del = await recorded(ctx, t.id, () => admin().delete(`/api/crm/relationships/${rel.result.json().id}`));
    expect(del.changes.map((c) => [c.type, c.data.contactId]).sort()).toEqual([['relationship.deleted', a], ['relationship.deleted', b]]);

    const req = await recorded(ctx, t.id, () => admin().post('/api/crm/requests', { contactId: a, type: 'Counseling', description: 'Grief' }));
    const requestId = req.result.json().id;
    expect(req.changes).toMatchObject([{ type: 'request.created', entityType: 'request', entityId: requestId, actorUserId: t.admin.id, data: { contactId: a, type: 'Counseling', requestId, confidential: true } }]);
    const upd = await recorded(ctx, t.id, () => admin().put(`/api/crm/requests/${requestId}`, { status: 'Resolved' }));
    expect(upd.changes).toMatchObject([{ type: 'request.updated', changes: { status: { from: 'Open', to: 'Resolved' } }, data: { contactId: a, requestId, confidential: true } }]);
    const prayer = await recorded(ctx, t.id, () => admin().post('/api/crm/requests', { contactId: a, type: 'Prayer', description: 'Exams' }));
    expect(prayer.changes[0].data.confidential).toBeUndefined();
  });

  it('groups (create, update with diff, delete) and the group import', async () => {
    const catId = await categoryId(ctx, t, 'Fellowship');
    const created = await recorded(ctx, t.id, () => admin().post('/api/groups', { name: 'Hill Fellowship', categoryId: catId }));
    const id = created.result.json().id;
    expect(created.changes).toMatchObject([{ type: 'group.created', entityType: 'group', entityId: id, actorUserId: t.admin.id, data: { groupId: id, name: 'Hill Fellowship' } }]);
    const updated = await recorded(ctx, t.id, () => admin().put(`/api/groups/${id}`, { name: 'Hilltop Fellowship', privacy: 'Private', parentId: fellowship.id }));
    expect(updated.result.statusCode).toBe(200);
    expect(updated.changes).toMatchObject([{
      type: 'group.updated', entityId: id, data: { groupId: id },
      changes: { name: { from: 'Hill Fellowship', to: 'Hilltop Fellowship' }, privacy: { from: 'Public', to: 'Private' }, parentId: { from: null, to: fellowship.id } },
    }]);
    const deleted = await recorded(ctx, t.id, () => admin().delete(`/api/groups/${id}`));
    expect(deleted.changes).toMatchObject([{ type: 'group.deleted', entityId: id, data: { groupId: id, name: 'Hilltop Fellowship' } }]);

    const imported = await recorded(ctx, t.id, () => admin().post('/api/groups/import', { groups: [{ name: 'Imp A', category: 'Fellowship' }, { name: 'Imp B', category: 'Fellowship', parentName: 'Imp A' }] }));
    expect(imported.result.statusCode, imported.result.body).toBe(200);
    expect(imported.changes.map((c) => [c.type, c.data.name])).toEqual([['group.created', 'Imp A'], ['group.created', 'Imp B']]);
    expect(imported.changes.every((c) => c.data.groupId === c.entityId && c.actorUserId === t.admin.id)).toBe(true);
  });

  it('memberships and membership requests carry contactId, groupId and role', async () => {
    const contactId = await newContact(ctx, t, 'Mem', 'Ber');
    const created = await recorded(ctx, t.id, () => admin().post('/api/groups/membership', { groupId: fellowship.id, contactId, role: 'Assistant' }));
    const id = created.result.json().id;
    expect(created.changes).toMatchObject([{ type: 'membership.created', entityType: 'membership', entityId: id, data: { contactId, groupId: fellowship.id, role: 'Assistant', groupName: 'Riverside Fellowship' } }]);
    const updated = await recorded(ctx, t.id, () => admin().put(`/api/groups/membership/${id}`, { role: 'Leader', isActive: false }));
    expect(updated.changes).toMatchObject([{ type: 'membership.updated', changes: { role: { from: 'Assistant', to: 'Leader' }, isActive: { from: true, to: false } }, data: { contactId, groupId: fellowship.id, role: 'Leader' } }]);

    // A request approved for an inactive member reactivates the membership.
    const asked = await recorded(ctx, t.id, () => admin().post('/api/groups/membership-request', { groupId: fellowship.id, contactId }));
    const requestId = asked.result.json().id;
    expect(asked.changes).toMatchObject([{ type: 'membership_request.created', entityType: 'membership_request', entityId: requestId, data: { contactId, groupId: fellowship.id, requestId } }]);
    const approved = await recorded(ctx, t.id, () => admin().put(`/api/groups/membership-request/${requestId}/approve`, {}));
    expect(approved.result.statusCode).toBe(200);
    expect(approved.changes).toMatchObject([
      { type: 'membership_request.approved', entityId: requestId, data: { contactId, groupId: fellowship.id, requestId } },
      { type: 'membership.updated', entityId: id, changes: { isActive: { from: false, to: true }, role: { from: 'Leader', to: 'Member' } }, data: { contactId, groupId: fellowship.id, role: 'Member' } },
    ]);

    const other = await newContact(ctx, t, 'New', 'Comer');
    const r2 = (await admin().post('/api/groups/membership-request', { groupId: fellowship.id, contactId: other })).json().id;
    const approved2 = await recorded(ctx, t.id, () => admin().put(`/api/groups/membership-request/${r2}/approve`, {}));
    expect(approved2.changes.map((c) => c.type)).toEqual(['membership_request.approved', 'membership.created']);
    expect(approved2.changes[1].data).toMatchObject({ contactId: other, groupId: fellowship.id, role: 'Member' });
    const third = await newContact(ctx, t, 'Not', 'Welcome');
    const r3 = (await admin().post('/api/groups/membership-request', { groupId: fellowship.id, contactId: third })).json().id;
    const rejected = await recorded(ctx, t.id, () => admin().put(`/api/groups/membership-request/${r3}/reject`, {}));
    expect(rejected.changes).toMatchObject([{ type: 'membership_request.rejected', entityId: r3, data: { contactId: third, groupId: fellowship.id, requestId: r3 } }]);

    const removed = await recorded(ctx, t.id, () => admin().delete(`/api/groups/membership/${id}`));
    expect(removed.changes).toMatchObject([{ type: 'membership.deleted', entityId: id, data: { contactId, groupId: fellowship.id, role: 'Member' } }]);
  });

  it('events (groupId in data) and activities (one change per contact)', async () => {
    const created = await recorded(ctx, t.id, () => admin().post('/api/events', { name: 'Sunday Service', startDate: '2026-03-01', groupId: fellowship.id }));
    const id = created.result.json().id;
    expect(created.changes).toMatchObject([{ type: 'event.created', entityType: 'event', entityId: id, actorUserId: t.admin.id, data: { groupId: fellowship.id, name: 'Sunday Service' } }]);
    const updated = await recorded(ctx, t.id, () => admin().put(`/api/events/${id}`, { name: 'Easter Service', startDate: '2026-03-01' }));
    expect(updated.changes).toMatchObject([{ type: 'event.updated', changes: { name: { from: 'Sunday Service', to: 'Easter Service' } }, data: { groupId: fellowship.id } }]);
    expect(Object.keys(updated.changes[0].changes!)).toEqual(['name']);

    const a = await newContact(ctx, t, 'Sal', 'Vation');
    const b = await newContact(ctx, t, 'Bap', 'Tism');
    const act = await recorded(ctx, t.id, () => admin().post(`/api/events/${id}/activities`, { activityType: 'Salvation', contactIds: [a, b] }));
    expect(act.result.statusCode).toBe(201);
    expect(act.changes.map((c) => c.data.contactId).sort()).toEqual([a, b].sort());
    for (const c of act.changes) {
      expect(c).toMatchObject({ type: 'event.activity_recorded', entityType: 'event', entityId: id, data: { eventId: id, groupId: fellowship.id, activityType: 'Salvation' } });
    }
    const deleted = await recorded(ctx, t.id, () => admin().delete(`/api/events/${id}`));
    expect(deleted.changes).toMatchObject([{ type: 'event.deleted', entityId: id, data: { groupId: fellowship.id } }]);
  });

  it('roles: created, updated with from/to, deleted', async () => {
    const created = await recorded(ctx, t.id, () => admin().post('/api/roles', { name: 'Ushers', permissions: ['contacts:read'] }));
    const id = created.result.json().id;
    expect(created.changes).toMatchObject([{ type: 'role.created', entityId: id, actorUserId: t.admin.id, data: { name: 'Ushers', permissions: ['contacts:read'] } }]);
    const updated = await recorded(ctx, t.id, () => admin().put(`/api/roles/${id}`, { permissions: ['contacts:read', 'groups:read'], description: 'Door team' }));
    expect(updated.changes).toMatchObject([{ type: 'role.updated', changes: { permissions: { from: ['contacts:read'], to: ['contacts:read', 'groups:read'] }, description: { from: null, to: 'Door team' } } }]);
    const deleted = await recorded(ctx, t.id, () => admin().delete(`/api/roles/${id}`));
    expect(deleted.changes).toMatchObject([{ type: 'role.deleted', entityId: id, data: { name: 'Ushers' } }]);
  });

  it('users: created (with the new contact), updated, disabled, password changes — never a password or hash', async () => {
    const memberRole = await roleId(ctx, t, 'Member');
    const created = await recorded(ctx, t.id, () =>
      admin().post('/api/users', { username: 'newbie', email: 'newbie@example.org', password: 'a secret password', firstName: 'New', lastName: 'Bie', roleIds: [memberRole] }));
    expect(created.result.statusCode, created.result.body).toBe(201);
    const user = created.result.json();
    expect(created.changes.map((c) => c.type)).toEqual(['contact.created', 'user.created']);
    expect(created.changes[0]).toMatchObject({ entityId: user.contactId, data: { contactId: user.contactId } });
    expect(created.changes[1]).toMatchObject({ entityType: 'user', entityId: user.id, actorUserId: t.admin.id, data: { userId: user.id, contactId: user.contactId, username: 'newbie', roleIds: [memberRole] } });

    const leaderRole = await roleId(ctx, t, 'Leader');
    const updated = await recorded(ctx, t.id, () => admin().put(`/api/users/${user.id}`, { email: 'newbie2@example.org', roleIds: [leaderRole], status: 'Disabled' }));
    expect(updated.result.statusCode, updated.result.body).toBe(200);
    expect(updated.changes.map((c) => c.type)).toEqual(['user.updated', 'user.disabled']);
    expect(updated.changes[0].changes).toEqual({
      email: { from: 'newbie@example.org', to: 'newbie2@example.org' }, status: { from: 'Active', to: 'Disabled' }, roleIds: { from: [memberRole], to: [leaderRole] },
    });
    expect(updated.changes[1].data).toMatchObject({ userId: user.id, contactId: user.contactId });

    const self = await newUser(ctx, t, 'Member');
    const pw = await recorded(ctx, t.id, () => api(ctx.app, self.token).put('/api/users/me/password', { currentPassword: PASSWORD, newPassword: 'another long secret' }));
    expect(pw.result.statusCode).toBe(204);
    expect(pw.changes).toMatchObject([{ type: 'user.updated', entityId: self.id, actorUserId: self.id, changes: null, data: { userId: self.id, credentialChanged: true } }]);

    const removed = await recorded(ctx, t.id, () => admin().delete(`/api/users/${self.id}`));
    expect(removed.changes).toMatchObject([{ type: 'user.disabled', entityId: self.id, data: { deleted: true } }]);

    const all = JSON.stringify(await storedChanges(ctx, t.id));
    for (const secret of ['a secret password', 'another long secret', PASSWORD, '$argon2', 'passwordHash']) expect(all).not.toContain(secret);
  });

  it('self-registration records contact.created and user.created with the new account as actor', async () => {
    const open = await newTenant(ctx, { allowRegistration: true });
    const { result, changes } = await recorded(ctx, open.id, () =>
      api(ctx.app).post('/api/register', { churchName: open.slug, username: 'joiner', email: 'joiner@example.org', password: 'joiner password', firstName: 'Jo', lastName: 'Iner' }));
    expect(result.statusCode, result.body).toBe(201);
    const user = result.json();
    expect(changes).toMatchObject([
      { type: 'contact.created', entityId: user.contactId, actorUserId: user.id, data: { contactId: user.contactId } },
      { type: 'user.created', entityId: user.id, actorUserId: user.id, data: { userId: user.id, contactId: user.contactId, registered: true } },
    ]);
    expect(JSON.stringify(changes)).not.toContain('joiner password');
  });
});
