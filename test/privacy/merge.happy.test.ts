import { sql } from 'drizzle-orm';
import { beforeAll, describe, expect, it } from 'vitest';
import { api, setupTestApp } from '../helpers/app.js';
import { newEvent } from '../helpers/events.factories.js';
import { newTenant, newUser, type TestTenant, type TestUser } from '../helpers/factories.js';
import { newGroup, type TestGroup } from '../helpers/groups.factories.js';
import { login } from '../helpers/users.factories.js';
import { contactLinkColumns, count, person, post, query } from './privacy.helpers.js';

const ctx = setupTestApp();

/** The profile rows are the source's identity: they go with it, never to the survivor. */
const NOT_CARRIED = ['companies.contact_id', 'persons.contact_id'];

describe('POST /api/crm/contacts/:id/merge carries every kind of linked row', () => {
  let tenant: TestTenant;
  let v: number; // the survivor
  let s1: number;
  let s2: number;
  let third: number;
  let g1: TestGroup;
  let g2: TestGroup;
  let sourceUser: TestUser;
  let links: string[];
  const before: Record<string, { onSources: number; onSurvivor: number }> = {};
  let result: Record<string, any>;

  const exists = async (table: string) => (await query(ctx, tenant, sql`SELECT to_regclass(${`public.${table}`}) IS NOT NULL AS ok`))[0].ok === true;
  const rowsOn = (link: string, ids: number[]) => {
    const [table, column] = link.split('.');
    return count(ctx, tenant, sql`SELECT count(*) FROM ${sql.identifier(table)} WHERE tenant_id = ${tenant.id} AND ${sql.identifier(column)} IN (${sql.join(ids.map((id) => sql`${id}`), sql`, `)})`);
  };

  beforeAll(async () => {
    tenant = await newTenant(ctx);
    const token = tenant.admin.token;
    v = (await person(ctx, tenant, 'Mary', 'Merged', {
      emails: [{ value: 'mary@example.org', isPrimary: true }], phones: [{ value: '+256 700 999 999' }], addresses: [{ street: '1 Main St', city: 'Kampala' }],
    })).id;
    s1 = (await person(ctx, tenant, 'Mary', 'Merged', {
      emails: [{ value: 'MARY@example.org' }, { value: 'mary.work@example.org', isPrimary: true }],
      phones: [{ value: '0700 111 222' }], addresses: [{ street: '2 Side Rd', city: 'Entebbe' }, { street: '1 main st', city: 'kampala' }],
      occasions: [{ type: 'Birthday', date: '1990-05-01' }], identifications: [{ type: 'Passport', value: 'P-S1' }],
    })).id;
    s2 = (await person(ctx, tenant, 'M.', 'Merged', { emails: [{ value: 'mary.work@EXAMPLE.org' }], phones: [{ value: '+256-700-999-999' }] })).id;
    third = (await person(ctx, tenant, 'Tom', 'Third')).id;

    // Relationships: s1 is third's friend (both rows carried), s1 is v's spouse (dropped: v would be its own spouse).
    await post(ctx, token, '/api/crm/relationships', { contactId: s1, relatedContactId: third, type: 'Friend' });
    await post(ctx, token, '/api/crm/relationships', { contactId: s1, relatedContactId: v, type: 'Spouse' });
    await post(ctx, token, '/api/crm/requests', { contactId: s1, type: 'Prayer', description: 'For the merge' });
    g1 = await newGroup(ctx, tenant, { name: 'Choir' });
    g2 = await newGroup(ctx, tenant, { name: 'Ushers' });
    const g3 = await newGroup(ctx, tenant, { name: 'Youth', privacy: 'Private' });
    for (const [groupId, contactId] of [[g1.id, v], [g1.id, s1], [g2.id, s1]]) await post(ctx, token, '/api/groups/membership', { groupId, contactId });
    await query(ctx, tenant, sql`INSERT INTO group_membership_requests (tenant_id, group_id, contact_id) VALUES (${tenant.id}, ${g3.id}, ${s1})`);
    const e1 = (await newEvent(ctx, tenant, { groupId: g1.id, startDate: '2026-02-01' })).id;
    const e2 = (await newEvent(ctx, tenant, { groupId: g2.id, startDate: '2026-02-08' })).id;
    await post(ctx, token, `/api/events/${e1}/registration`, { contactIds: [v, s1] });
    await post(ctx, token, `/api/events/${e2}/registration`, { contactIds: [s1] });
    // v attends nothing; both sources attend e1 (one record carried, the same session), s1 attends e2.
    await post(ctx, token, `/api/events/${e1}/attendance`, { contactIds: [s1, s2] });
    await post(ctx, token, `/api/events/${e2}/attendance`, { contactIds: [s1] });
    await post(ctx, token, `/api/events/${e1}/activities`, { activityType: 'Baptism', contactIds: [s1] });
    // s1 heads a household (its primary contact) with third: v, which has none, takes s1's place.
    await post(ctx, token, '/api/crm/households', { members: [{ contactId: s1, role: 'Head' }, { contactId: third, role: 'Spouse' }] });
    sourceUser = await newUser(ctx, tenant, ['contacts:read'], { contactId: s1 });

    // The newer modules' tables, where they exist.
    const [session] = await query(ctx, tenant, sql`SELECT session_id FROM attendance_records WHERE event_id = ${e2} LIMIT 1`).catch(() => [] as Record<string, unknown>[]);
    if (await exists('tasks')) await query(ctx, tenant, sql`INSERT INTO tasks (tenant_id, title, contact_id) VALUES (${tenant.id}, 'Welcome visit', ${s1})`);
    if (await exists('pipeline_cards')) {
      const [{ id: pipelineId }] = await query(ctx, tenant, sql`INSERT INTO pipelines (tenant_id, name) VALUES (${tenant.id}, 'Newcomers') RETURNING id`);
      const [{ id: stepId }] = await query(ctx, tenant, sql`INSERT INTO pipeline_steps (tenant_id, pipeline_id, name, position) VALUES (${tenant.id}, ${pipelineId}, 'Call', 1) RETURNING id`);
      await query(ctx, tenant, sql`INSERT INTO pipeline_cards (tenant_id, pipeline_id, step_id, contact_id) VALUES (${tenant.id}, ${pipelineId}, ${stepId}, ${s1})`);
    }
    if (await exists('contributions')) await query(ctx, tenant, sql`INSERT INTO contributions (tenant_id, contact_id, date, amount, method) VALUES (${tenant.id}, ${s1}, '2026-02-01', 5000, 'Cash')`);
    if (await exists('pledges')) {
      const [{ id: fundId }] = await query(ctx, tenant, sql`INSERT INTO funds (tenant_id, name) VALUES (${tenant.id}, 'Building') RETURNING id`);
      await query(ctx, tenant, sql`INSERT INTO pledges (tenant_id, contact_id, fund_id, amount, frequency, start_date) VALUES (${tenant.id}, ${s2}, ${fundId}, 100000, 'Monthly', '2026-01-01')`);
    }
    if (await exists('message_deliveries')) {
      const [{ id: messageId }] = await query(ctx, tenant, sql`INSERT INTO messages (tenant_id, subject, body) VALUES (${tenant.id}, 'Hi', 'Hello') RETURNING id`);
      await query(ctx, tenant, sql`INSERT INTO message_deliveries (tenant_id, message_id, contact_id, email) VALUES (${tenant.id}, ${messageId}, ${s1}, 'mary.work@example.org')`);
    }
    if (session?.session_id && (await exists('attendance_checkins'))) {
      const [{ id: codeId }] = await query(ctx, tenant, sql`INSERT INTO attendance_checkin_codes (tenant_id, session_id, code) VALUES (${tenant.id}, ${session.session_id}, 'ABC') RETURNING id`);
      await query(ctx, tenant, sql`INSERT INTO attendance_checkins (tenant_id, session_id, contact_id, code_id, security_code, status) VALUES (${tenant.id}, ${session.session_id}, ${s1}, ${codeId}, 'X1', 'CheckedOut')`);
    }
    if (session?.session_id && (await exists('attendance_absence_alerts'))) {
      await query(ctx, tenant, sql`INSERT INTO attendance_absence_alerts (tenant_id, contact_id, group_id, last_session_id) VALUES (${tenant.id}, ${s2}, ${g2.id}, ${session.session_id})`);
    }

    links = (await contactLinkColumns(ctx)).filter((l) => !NOT_CARRIED.includes(l));
    // A relationship between the survivor and a source is dropped, not carried: not counted as the survivor's before.
    const survivorOwn = (link: string) => {
      const [table, column] = link.split('.');
      const others = links.filter((l) => l !== link && l.startsWith(`${table}.`)).map((l) => l.split('.')[1]);
      return count(ctx, tenant, sql`SELECT count(*) FROM ${sql.identifier(table)} WHERE tenant_id = ${tenant.id} AND ${sql.identifier(column)} = ${v}
        ${sql.join(others.map((o) => sql` AND ${sql.identifier(o)} NOT IN (${s1}, ${s2})`), sql``)}`);
    };
    for (const link of links) before[link] = { onSources: await rowsOn(link, [s1, s2]), onSurvivor: await survivorOwn(link) };
    const res = await api(ctx.app, token).post(`/api/crm/contacts/${v}/merge`, { sourceIds: [s1, s2, s1] });
    expect(res.statusCode, res.body).toBe(200);
    result = res.json();
  });

  it('the test data links the sources through every table that references contacts', () => {
    const missing = links.filter((l) => before[l].onSources === 0);
    expect(missing, 'add a row of these tables to the merge fixture').toEqual([]);
  });

  it('every kind of linked row is now the survivor\'s, and nothing points at the sources', async () => {
    for (const link of links) {
      expect(await rowsOn(link, [s1, s2]), link).toBe(0);
      expect(await rowsOn(link, [v]), link).toBeGreaterThan(before[link].onSurvivor);
    }
    expect(await count(ctx, tenant, sql`SELECT count(*) FROM contacts WHERE id IN (${s1}, ${s2})`)).toBe(0);
  });

  it('returns the survivor with the carried arrays, duplicates skipped', () => {
    expect(result.id).toBe(v);
    expect(result.person.firstName).toBe('Mary');
    // mary@ (v) kept primary; MARY@ (s1) skipped; mary.work@ once though both sources had it.
    expect(result.emails).toEqual([{ value: 'mary@example.org', isPrimary: true }, { value: 'mary.work@example.org', isPrimary: false }]);
    expect(result.phones.map((p: { value: string }) => p.value)).toEqual(['+256 700 999 999', '0700 111 222']);
    expect(result.phones.filter((p: { isPrimary: boolean }) => p.isPrimary)).toHaveLength(1);
    expect(result.addresses.map((a: { street: string }) => a.street)).toEqual(['1 Main St', '2 Side Rd']);
    expect(result.occasions).toHaveLength(1);
    expect(result.identifications).toHaveLength(1);
    expect(result.requests).toHaveLength(1);
    expect(result.relationships).toEqual([expect.objectContaining({ contactId: v, relatedContactId: third, type: 'Friend' })]);
    expect(result.groupMemberships.map((m: { groupId: number }) => m.groupId).sort()).toEqual([g1.id, g2.id].sort());
    expect(result.household).toMatchObject({ role: 'Head' });
  });

  it('one record per session and event: duplicates dropped, not doubled', async () => {
    expect(await count(ctx, tenant, sql`SELECT count(*) FROM attendance_records WHERE contact_id = ${v}`)).toBe(2);
    expect(await count(ctx, tenant, sql`SELECT count(*) FROM event_registrations WHERE contact_id = ${v}`)).toBe(2);
    expect(await count(ctx, tenant, sql`SELECT count(*) FROM group_memberships WHERE contact_id = ${v}`)).toBe(2);
    expect(await count(ctx, tenant, sql`SELECT count(*) FROM contact_relationships WHERE contact_id = ${third} AND related_contact_id = ${v}`)).toBe(1);
  });

  it('the source\'s user now belongs to the survivor and still signs in', async () => {
    const [row] = await query(ctx, tenant, sql`SELECT contact_id, status FROM users WHERE id = ${sourceUser.id}`);
    expect({ contactId: Number(row.contact_id), status: row.status }).toEqual({ contactId: v, status: 'Active' });
    expect((await login(ctx, tenant, sourceUser.username)).user.id).toBe(sourceUser.id);
  });

  it('searches find the survivor by a carried email', async () => {
    const found = (await api(ctx.app, tenant.admin.token).get('/api/crm/contacts?q=mary.work')).json();
    expect(found.data.map((c: { id: number }) => c.id)).toEqual([v]);
  });

  it('records contact.merged {contactId, sourceIds}, a contact.deleted per source and the user move, by the caller', async () => {
    const changes = await query(ctx, tenant, sql`SELECT type, entity_id, actor_user_id, changes, data FROM changes
      WHERE type IN ('contact.merged', 'contact.deleted', 'user.updated') ORDER BY id`);
    const plain = changes.map((c) => ({ ...c, entity_id: Number(c.entity_id), actor_user_id: Number(c.actor_user_id) }));
    expect(plain).toEqual([
      { type: 'contact.deleted', entity_id: s1, actor_user_id: tenant.admin.id, changes: null, data: { contactId: s1, mergedInto: v } },
      { type: 'contact.deleted', entity_id: s2, actor_user_id: tenant.admin.id, changes: null, data: { contactId: s2, mergedInto: v } },
      { type: 'user.updated', entity_id: sourceUser.id, actor_user_id: tenant.admin.id, changes: { contactId: { from: s1, to: v } }, data: { contactId: v, userId: sourceUser.id } },
      { type: 'contact.merged', entity_id: v, actor_user_id: tenant.admin.id, changes: null, data: { contactId: v, sourceIds: [s1, s2] } },
    ]);
  });
});
