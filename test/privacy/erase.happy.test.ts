import { sql } from 'drizzle-orm';
import { beforeAll, describe, expect, it } from 'vitest';
import { recordChanges } from '../../src/changes/recorder.js';
import { withTenant } from '../../src/db/client.js';
import { api, expectError, setupTestApp } from '../helpers/app.js';
import { fullPersonBody } from '../helpers/contacts.factories.js';
import { newEvent } from '../helpers/events.factories.js';
import { newTenant, newUser, type TestTenant, type TestUser } from '../helpers/factories.js';
import { newGroup } from '../helpers/groups.factories.js';
import { login } from '../helpers/users.factories.js';
import { count, person, post, query, tenantText } from './privacy.helpers.js';

const ctx = setupTestApp();

describe('POST /api/crm/contacts/:id/erase', () => {
  let tenant: TestTenant;
  let contact: { id: number; person: Record<string, string>; emails: { value: string }[]; phones: { value: string }[]; identifications: { value: string }[] };
  let friend: { id: number };
  let user: TestUser;
  let refreshToken: string;
  let eventId: number;
  let taskId: number | undefined;
  let contributionId: number | undefined;
  const secrets: string[] = [];

  beforeAll(async () => {
    tenant = await newTenant(ctx);
    const token = tenant.admin.token;
    contact = await post(ctx, token, '/api/crm/contacts', fullPersonBody({ person: { ...fullPersonBody().person, checkinNote: 'Nut allergy' } }));
    friend = await person(ctx, tenant, 'Frank', 'Friend');
    // An update first, so the audit holds a before/after of personal values.
    const renamed = `Renamed${contact.id}`;
    const put = await api(ctx.app, token).put(`/api/crm/contacts/${contact.id}`, { person: { firstName: renamed, lastName: contact.person.lastName } });
    expect(put.statusCode, put.body).toBe(200);
    // Whatever the contacts module records, a diff of personal values exists for the contact and in a data.contactId change.
    await withTenant(ctx.db, tenant.id, (tx) =>
      recordChanges(tx, { tenantId: tenant.id, userId: tenant.admin.id }, [
        { type: 'contact.updated', entityId: contact.id, changes: { firstName: { from: contact.person.firstName, to: renamed }, status: { from: 'Active', to: 'Inactive' } }, data: { contactId: contact.id } },
        { type: 'membership.created', entityId: 999999, data: { contactId: contact.id, groupId: 1, contactName: `${renamed} ${contact.person.lastName}`, role: 'Member' } },
      ]),
    );
    secrets.push(contact.person.firstName, renamed, contact.person.lastName, contact.emails[0].value, contact.emails[1].value, '7946', '12 St James Square', contact.identifications[0].value, 'Mathematician');
    const group = await newGroup(ctx, tenant, { name: 'Choir' });
    await post(ctx, token, '/api/groups/membership', { groupId: group.id, contactId: contact.id });
    const request = await post(ctx, token, '/api/crm/requests', { contactId: contact.id, type: 'Counseling', description: 'Secret sorrow of the erased' });
    secrets.push('Secret sorrow of the erased');
    await post(ctx, token, '/api/crm/relationships', { contactId: contact.id, relatedContactId: friend.id, type: 'Spouse' });
    eventId = (await newEvent(ctx, tenant, { groupId: group.id })).id;
    await post(ctx, token, `/api/events/${eventId}/registration`, { contactIds: [contact.id] });
    await post(ctx, token, `/api/events/${eventId}/attendance`, { contactIds: [contact.id] });
    // A task made from the request and a gift, where those modules' tables exist.
    const [hasTasks, hasContributions] = (await query(ctx, tenant, sql`SELECT to_regclass('public.tasks') IS NOT NULL AS t, to_regclass('public.contributions') IS NOT NULL AS c`)).map((r) => [r.t, r.c])[0];
    if (hasTasks) {
      [{ id: taskId }] = (await query(ctx, tenant, sql`INSERT INTO tasks (tenant_id, title, contact_id, request_id) VALUES (${tenant.id}, 'Call back', ${contact.id}, ${request.id}) RETURNING id`)) as { id: number }[];
    }
    if (hasContributions) {
      [{ id: contributionId }] = (await query(ctx, tenant, sql`INSERT INTO contributions (tenant_id, contact_id, date, amount, method, payer_name, payer_email)
        VALUES (${tenant.id}, ${contact.id}, '2026-01-04', 12550, 'Cash', 'Payer Secretname', 'payer.secret@example.org') RETURNING id`)) as { id: number }[];
      secrets.push('Payer Secretname', 'payer.secret@example.org');
    }
    if ((await query(ctx, tenant, sql`SELECT to_regclass('public.message_deliveries') IS NOT NULL AS ok`))[0].ok) {
      const [{ id: messageId }] = await query(ctx, tenant, sql`INSERT INTO messages (tenant_id, subject, body) VALUES (${tenant.id}, 'Hi', 'Hello') RETURNING id`);
      await query(ctx, tenant, sql`INSERT INTO message_deliveries (tenant_id, message_id, contact_id, email) VALUES (${tenant.id}, ${messageId}, ${contact.id}, 'delivered.secret@example.org')`);
      secrets.push('delivered.secret@example.org');
    }
    user = await newUser(ctx, tenant, ['contacts:read'], { contactId: contact.id, email: 'erased.user@example.org', username: `erasable-${contact.id}` });
    secrets.push('erased.user@example.org', `erasable-${contact.id}`);
    refreshToken = (await login(ctx, tenant, user.username)).refreshToken;
  });

  it('400 without confirm: true, and nothing changes', async () => {
    const client = api(ctx.app, tenant.admin.token);
    expect(expectError(await client.post(`/api/crm/contacts/${contact.id}/erase`, { confirm: false }), 400)).toMatch(/confirm/);
    expectError(await client.post(`/api/crm/contacts/${contact.id}/erase`, {}), 400);
    expect((await client.get(`/api/crm/contacts/${contact.id}`)).json().emails).toHaveLength(2);
  });

  it('erases the person in one go: 200 {erased: true}', async () => {
    const res = await api(ctx.app, tenant.admin.token).post(`/api/crm/contacts/${contact.id}/erase`, { confirm: true });
    expect(res.statusCode, res.body).toBe(200);
    expect(res.json()).toEqual({ erased: true });
  });

  it('names become Erased; emails, phones, addresses, occasions, identifications, relationships, requests and memberships are gone', async () => {
    const doc = (await api(ctx.app, tenant.admin.token).get(`/api/crm/contacts/${contact.id}`)).json();
    expect(doc.person).toEqual({ firstName: 'Erased', lastName: 'Erased', middleName: null, gender: null, civilStatus: null, dateOfBirth: null, occupation: null, checkinNote: null });
    for (const key of ['emails', 'phones', 'addresses', 'occasions', 'identifications', 'relationships', 'requests', 'groupMemberships']) expect(doc[key], key).toEqual([]);
    // The friend's inverse relationship goes too.
    expect((await api(ctx.app, tenant.admin.token).get(`/api/crm/contacts/${friend.id}`)).json().relationships).toEqual([]);
    expect(await count(ctx, tenant, sql`SELECT count(*) FROM group_memberships WHERE contact_id = ${contact.id}`)).toBe(0);
    // Not found by its old name any more.
    expect((await api(ctx.app, tenant.admin.token).get(`/api/crm/contacts?q=${encodeURIComponent(contact.person.lastName)}`)).json().total).toBe(0);
  });

  it('attendance and registrations stay as counts on the anonymised contact; tasks and gifts are detached, money kept', async () => {
    expect(await count(ctx, tenant, sql`SELECT count(*) FROM attendance_records WHERE event_id = ${eventId}`)).toBe(1);
    expect(await count(ctx, tenant, sql`SELECT count(*) FROM event_registrations WHERE event_id = ${eventId}`)).toBe(1);
    if (taskId) {
      const [task] = await query(ctx, tenant, sql`SELECT contact_id, request_id FROM tasks WHERE id = ${taskId}`);
      expect(task).toEqual({ contact_id: null, request_id: null });
    }
    const deliveries = await query(ctx, tenant, sql`SELECT email FROM message_deliveries WHERE contact_id = ${contact.id}`).catch(() => null);
    if (deliveries) expect(deliveries).toEqual([{ email: '[erased]' }]);
    if (contributionId) {
      const [gift] = await query(ctx, tenant, sql`SELECT contact_id, amount, payer_name, payer_email FROM contributions WHERE id = ${contributionId}`);
      expect({ ...gift, amount: Number(gift.amount) }).toEqual({ contact_id: null, amount: 12550, payer_name: null, payer_email: null });
    }
  });

  it('the linked user is disabled, its sessions end, its name and email are gone', async () => {
    const [row] = await query(ctx, tenant, sql`SELECT username, email, status, password_hash FROM users WHERE id = ${user.id}`);
    expect(row).toEqual({ username: `erased-${user.id}`, email: null, status: 'Disabled', password_hash: null });
    expectError(await api(ctx.app, user.token).get('/api/users/me'), 401);
    expectError(await api(ctx.app).post('/api/auth/refresh', { refreshToken }), 401);
  });

  it('the audit keeps the changes but none of the erased values, anywhere in the tenant', async () => {
    const text = await tenantText(ctx, tenant);
    for (const secret of secrets) expect(text, secret).not.toContain(secret);
    const changes = await query(ctx, tenant, sql`SELECT type, changes, data, actor_user_id FROM changes
      WHERE (entity_type = 'contact' AND entity_id = ${contact.id}) OR data->>'contactId' = ${String(contact.id)} ORDER BY id`);
    const updated = changes.find((c) => c.type === 'contact.updated' && (c.changes as Record<string, unknown>)?.status);
    expect(updated!.changes).toEqual({ firstName: { from: '[erased]', to: '[erased]' }, status: { from: 'Active', to: 'Inactive' } });
    const membership = changes.find((c) => c.type === 'membership.created' && (c.data as Record<string, unknown>).contactName);
    expect(membership!.data).toEqual({ contactId: contact.id, groupId: 1, contactName: '[erased]', role: 'Member' });
    const erased = changes.filter((c) => c.type === 'contact.erased');
    expect(erased).toEqual([{ type: 'contact.erased', changes: null, data: { contactId: contact.id, userId: user.id }, actor_user_id: expect.anything() }]);
    expect(Number(erased[0].actor_user_id)).toBe(tenant.admin.id);
    expect(changes.map((c) => c.type)).toEqual(expect.arrayContaining(['contact.created', 'relationship.created', 'request.created', 'user.disabled']));
  });

  it('erasing again is harmless; an erased contact is never anyone\'s duplicate', async () => {
    const other = await person(ctx, tenant, 'Twin', 'Erasable');
    const client = api(ctx.app, tenant.admin.token);
    expect((await client.post(`/api/crm/contacts/${other.id}/erase`, { confirm: true })).statusCode).toBe(200);
    expect((await client.post(`/api/crm/contacts/${contact.id}/erase`, { confirm: true })).statusCode).toBe(200);
    const pairs = (await client.get('/api/crm/duplicates')).json();
    expect(pairs.data.flatMap((p: { contacts: { id: number }[] }) => p.contacts.map((c) => c.id))).not.toContain(other.id);
  });
});
