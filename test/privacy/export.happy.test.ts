import { beforeAll, describe, expect, it } from 'vitest';
import { api, setupTestApp } from '../helpers/app.js';
import { fullPersonBody } from '../helpers/contacts.factories.js';
import { newEvent } from '../helpers/events.factories.js';
import { newTenant, newUser, type TestTenant } from '../helpers/factories.js';
import { newGroup } from '../helpers/groups.factories.js';
import { person, post } from './privacy.helpers.js';

const ctx = setupTestApp();

describe('GET /api/crm/contacts/:id/export', () => {
  let tenant: TestTenant;
  let contact: { id: number } & Record<string, unknown>;
  let other: { id: number };
  let eventId: number;
  let groupId: number;
  let requestId: number;

  beforeAll(async () => {
    tenant = await newTenant(ctx);
    const token = tenant.admin.token;
    contact = await post(ctx, token, '/api/crm/contacts', fullPersonBody());
    other = await person(ctx, tenant, 'Other', 'Person');
    const group = await newGroup(ctx, tenant, { name: 'Choir' });
    groupId = group.id;
    await post(ctx, token, '/api/groups/membership', { groupId, contactId: contact.id, role: 'Member' });
    await post(ctx, token, '/api/groups/membership', { groupId, contactId: other.id, role: 'Member' });
    requestId = (await post(ctx, token, '/api/crm/requests', { contactId: contact.id, type: 'Prayer', description: 'Pray for my exams' })).id;
    await post(ctx, token, '/api/crm/relationships', { contactId: contact.id, relatedContactId: other.id, type: 'Friend' });
    eventId = (await newEvent(ctx, tenant, { groupId })).id;
    await post(ctx, token, `/api/events/${eventId}/registration`, { contactIds: [contact.id, other.id] });
    await post(ctx, token, `/api/events/${eventId}/attendance`, { contactIds: [contact.id] });
    await post(ctx, token, `/api/events/${eventId}/activities`, { activityType: 'Baptism', contactIds: [contact.id], notes: 'River baptism' });
  });

  it('is a JSON attachment with the contact and every section about the person', async () => {
    const res = await api(ctx.app, tenant.admin.token).get(`/api/crm/contacts/${contact.id}/export`);
    expect(res.statusCode, res.body).toBe(200);
    expect(res.headers['content-type']).toMatch(/^application\/json/);
    expect(res.headers['content-disposition']).toBe(`attachment; filename="contact-${contact.id}.json"`);
    const doc = res.json();
    expect(new Date(doc.exportedAt).toISOString()).toBe(doc.exportedAt);
    // The contact as the single read shows it, with all nested arrays.
    expect(doc.contact.id).toBe(contact.id);
    expect(doc.contact.person).toEqual(contact.person);
    for (const key of ['emails', 'phones', 'addresses', 'occasions', 'identifications']) expect(doc.contact[key], key).toEqual(contact[key]);
    expect(doc.contact.requests).toEqual([expect.objectContaining({ id: requestId })]);
    expect(doc.contact.groupMemberships).toEqual([expect.objectContaining({ groupId })]);
    expect(doc.contact.emails).toHaveLength(2);
    expect(doc.contact.relationships).toHaveLength(1);
    // The contract's sections, always present.
    for (const key of ['memberships', 'requests', 'attendance', 'registrations', 'activities', 'tasks', 'contributions', 'pledges', 'timeline']) {
      expect(Array.isArray(doc[key]), key).toBe(true);
    }
    expect(doc.memberships).toHaveLength(1);
    expect(doc.memberships[0]).toMatchObject({ groupId, contactId: contact.id, role: 'Member', group: { id: groupId, name: 'Choir' } });
    expect(doc.memberships[0]).not.toHaveProperty('tenantId');
    expect(doc.requests).toEqual([expect.objectContaining({ id: requestId, contactId: contact.id, type: 'Prayer', description: 'Pray for my exams' })]);
    expect(doc.registrations).toEqual([expect.objectContaining({ eventId, contactId: contact.id })]);
    expect(doc.attendance).toEqual([expect.objectContaining({ contactId: contact.id })]);
    expect(doc.activities).toEqual([expect.objectContaining({ eventId, activityType: 'Baptism', notes: 'River baptism' })]);
    // Nothing of the other contact's own rows.
    expect(JSON.stringify(doc.memberships)).not.toContain(`"contactId":${other.id}`);
    expect(JSON.stringify(doc.registrations)).not.toContain(`"contactId":${other.id}`);
  });

  it('carries the timeline of changes about the person, and the linked user account without credentials', async () => {
    const user = await newUser(ctx, tenant, ['contacts:read'], { contactId: contact.id, email: 'ada.user@example.org' });
    const doc = (await api(ctx.app, tenant.admin.token).get(`/api/crm/contacts/${contact.id}/export`)).json();
    expect(doc.users).toEqual([expect.objectContaining({ id: user.id, username: user.username, email: 'ada.user@example.org', contactId: contact.id })]);
    expect(JSON.stringify(doc.users)).not.toMatch(/password|argon/i);
    const types = doc.timeline.map((c: { type: string }) => c.type);
    // Changes are recorded by every module's writes (the changes issue): those about this contact are here.
    expect(types).toEqual(expect.arrayContaining(['contact.created', 'membership.created', 'request.created', 'relationship.created', 'event.activity_recorded']));
    for (const change of doc.timeline) {
      expect(change.entity.type === 'contact' ? change.entity.id : change.data.contactId).toBe(contact.id);
      expect(new Date(change.occurredAt).toISOString()).toBe(change.occurredAt);
    }
    const ids = doc.timeline.map((c: { id: number }) => c.id);
    expect([...ids].sort((a, b) => a - b)).toEqual(ids);
  });

  it('exports a company too', async () => {
    const company = await post(ctx, tenant.admin.token, '/api/crm/contacts', { category: 'Company', company: { name: 'Acme Ltd' } });
    const doc = (await api(ctx.app, tenant.admin.token).get(`/api/crm/contacts/${company.id}/export`)).json();
    expect(doc.contact.company.name).toBe('Acme Ltd');
    expect(doc.memberships).toEqual([]);
  });
});
