import { sql } from 'drizzle-orm';
import { withTenant } from '../../src/db/client.js';
import { ALL_PERMISSIONS } from '../../src/lib/permissions.js';
import { DEMO_SLUG, seedDemoTenant } from '../../src/provisioning/demo-seed.js';
import { api, type TestContext } from '../helpers/app.js';
import { newUser, tokenFor, type TestTenant, type TestUser } from '../helpers/factories.js';

/**
 * One id of every kind a route takes, inside one tenant. The tenant-wide kinds come from the demo
 * tenant (hierarchy, people, giving, tasks, attendance) plus a few writes through the API; the
 * group-bound kinds exist once per group of `GroupObjects`.
 */
export type Kind =
  | 'contact' | 'contact2' | 'relationship' | 'request' | 'user' | 'role' | 'notification' | 'template' | 'webhook' | 'delivery'
  | 'message' | 'reportTemplate' | 'submission' | 'list' | 'task' | 'pipeline' | 'step' | 'card' | 'automation'
  | 'fund' | 'batch' | 'contribution' | 'pledge' | 'checkin' | 'groupCategory' | 'eventCategory' | 'household'
  | GroupKind;
export type GroupKind =
  | 'group' | 'event' | 'membership' | 'membershipRequest' | 'registration' | 'attendance' | 'activity' | 'service' | 'session';
export type Fixtures = Record<Kind, number>;

export interface FixtureTenant {
  tenant: TestTenant;
  /** Ids of this tenant; group-bound kinds belong to a group the admin sees (Riverside Fellowship). */
  ids: Fixtures;
  /** Group-bound kinds in a Private group the leader neither leads nor belongs to (Hillside Fellowship). */
  invisible: Fixtures;
  /** Group-bound kinds in a Public group the leader sees but does not lead (Zone A). */
  visibleNotLed: Fixtures;
  /** Every permission except hierarchy:all; leads Riverside Fellowship only. */
  leader: TestUser;
}

async function rows<T>(ctx: TestContext, tenantId: number, query: ReturnType<typeof sql>): Promise<T[]> {
  return ((await withTenant(ctx.db, tenantId, (tx) => tx.execute(query))) as unknown as { rows: T[] }).rows;
}

async function firstId(ctx: TestContext, tenantId: number, table: string, where = 'true'): Promise<number> {
  const [row] = await rows<{ id: string | number }>(ctx, tenantId, sql.raw(`select id from ${table} where tenant_id = ${tenantId} and ${where} order by id limit 1`));
  if (!row) throw new Error(`fixtures: no ${table} where ${where}`);
  return Number(row.id);
}

/** POST through the API as the admin; the created id. */
async function create(ctx: TestContext, token: string, url: string, body: unknown): Promise<Record<string, any>> {
  const res = await api(ctx.app, token).post(url, body as never);
  if (res.statusCode >= 300) throw new Error(`fixtures: POST ${url} → ${res.statusCode} ${res.body}`);
  return res.json();
}

async function groupObjects(ctx: TestContext, t: TestTenant, groupId: number, contactIds: number[], tag: string): Promise<Record<GroupKind, number>> {
  const admin = t.admin.token;
  const event = await create(ctx, admin, '/api/events', { name: `Event ${tag}`, startDate: '2026-03-01', groupId });
  const [c1, c2] = contactIds;
  const registration = (await create(ctx, admin, `/api/events/${event.id}/registration`, { contactIds: [c1] })).created[0];
  const attendance = (await create(ctx, admin, `/api/events/${event.id}/attendance`, { contactIds: [c1] })).created[0];
  const activity = await create(ctx, admin, `/api/events/${event.id}/activities`, { activityType: 'Testimony', contactIds: [c1] });
  const service = await create(ctx, admin, '/api/attendance/services', { name: `Service ${tag}`, groupId, dayOfWeek: 0, startTime: '09:30' });
  const session = await create(ctx, admin, '/api/attendance/sessions', { serviceId: service.id, date: '2026-03-01' });
  await create(ctx, admin, `/api/attendance/sessions/${session.id}/records`, { contactIds: [c1] });
  const membershipRequest = await create(ctx, admin, '/api/groups/membership-request', { groupId, contactId: c2 });
  const membership = await firstId(ctx, t.id, 'group_memberships', `group_id = ${groupId}`);
  return { group: groupId, event: event.id, membership, membershipRequest: membershipRequest.id, registration: registration.id, attendance: attendance.id, activity: activity.id, service: service.id, session: session.id };
}

/**
 * The demo tenant under a fresh slug (seeded as `demo`, then renamed so a second one can be seeded),
 * with the kinds the demo lacks created through the API.
 */
export async function fixtureTenant(ctx: TestContext): Promise<FixtureTenant> {
  const { tenant, admin } = await seedDemoTenant(ctx.db, 'correct horse battery');
  const slug = `fx-${tenant.id}-${Math.random().toString(36).slice(2, 8)}`;
  await ctx.db.execute(sql`update tenants set slug = ${slug} where id = ${tenant.id} and slug = ${DEMO_SLUG}`);
  const t: TestTenant = { id: tenant.id, slug, admin: { id: admin.id, tenantId: tenant.id, username: 'admin', contactId: admin.contactId, token: tokenFor(ctx, tenant.id, admin.id) } };
  const token = t.admin.token;
  const groupId = async (name: string) => firstId(ctx, t.id, 'groups', `name = '${name}'`);
  const membersOf = async (name: string) =>
    (await rows<{ contact_id: string }>(ctx, t.id, sql.raw(`select m.contact_id from group_memberships m join groups g on g.tenant_id = m.tenant_id and g.id = m.group_id
      where m.tenant_id = ${t.id} and g.name = '${name}' and m.role = 'Member' order by m.id`))).map((r) => Number(r.contact_id));
  const extra = await create(ctx, token, '/api/crm/contacts', { category: 'Person', person: { firstName: 'Fixture', lastName: 'Person' }, emails: [{ value: `fixture@${slug}.example.org` }] });
  const extra2 = await create(ctx, token, '/api/crm/contacts', { category: 'Person', person: { firstName: 'Fixture', lastName: 'Other' } });
  const outsider = await create(ctx, token, '/api/crm/contacts', { category: 'Person', person: { firstName: 'Out', lastName: 'Sider' } });
  const outsider2 = await create(ctx, token, '/api/crm/contacts', { category: 'Person', person: { firstName: 'Out', lastName: 'Sider2' } });

  const riverside = await groupId('Riverside Fellowship');
  const [hillside, zoneA] = [await groupId('Hillside Fellowship'), await groupId('Zone A')];
  const riversideMembers = await membersOf('Riverside Fellowship');
  const own = await groupObjects(ctx, t, riverside, [riversideMembers[0], outsider.id], 'own');
  const invisibleObjects = await groupObjects(ctx, t, hillside, [(await membersOf('Hillside Fellowship'))[0], outsider2.id], 'invisible');
  const zoneMember = extra2.id;
  await create(ctx, token, '/api/groups/membership', { groupId: zoneA, contactId: zoneMember });
  const visibleObjects = await groupObjects(ctx, t, zoneA, [zoneMember, extra.id], 'visible');

  const relationship = await create(ctx, token, '/api/crm/relationships', { contactId: extra.id, relatedContactId: extra2.id, type: 'Friend' });
  const request = await create(ctx, token, '/api/crm/requests', { contactId: extra.id, type: 'Prayer', description: 'Fixture' });
  const role = await create(ctx, token, '/api/roles', { name: 'Fixture role', permissions: ['contacts:read'] });
  const user = await newUser(ctx, t, ['contacts:read']);
  const template = await create(ctx, token, '/api/notifications/templates', { name: 'Fixture', subject: 'Hi', body: 'Hello {{firstName}}' });
  const webhook = await create(ctx, token, '/api/notifications/webhooks', { url: 'https://hooks.example.org/parish', events: ['contact.updated'] });
  // Notifications and deliveries are made by the worker, which tests do not run: rows of their own.
  const notification = await insertId(ctx, t.id, `insert into notifications (tenant_id, user_id, type, title, body) values (${t.id}, ${t.admin.id}, 'task.assigned', 'Fixture', 'Fixture') returning id`);
  const delivery = await insertId(ctx, t.id, `insert into webhook_deliveries (tenant_id, webhook_id, change_id, type, status)
    select ${t.id}, ${webhook.id}, max(id), 'contact.updated', 'Failed' from changes where tenant_id = ${t.id} returning id`);
  const message = await create(ctx, token, '/api/notifications/messages', { audience: { contactIds: [extra.id] }, subject: 'Hi', body: 'Hello' });
  const fellowship = await firstId(ctx, t.id, 'group_categories', `name = 'Fellowship'`);
  const reportTemplate = await create(ctx, token, '/api/reports/templates', {
    name: 'Fixture report', groupCategoryId: fellowship, fields: [{ key: 'attendance', label: 'Attendance', type: 'number', required: true }],
  });
  const submission = await create(ctx, token, `/api/reports/templates/${reportTemplate.id}/submissions`, { groupId: riverside, values: { attendance: 12 } });
  const list = await create(ctx, token, '/api/search/lists', { name: 'Fixture list', criteria: { conditions: [{ field: 'city', operator: 'eq', value: 'Kampala' }] } });
  const task = await create(ctx, token, '/api/tasks', { title: 'Fixture task', contactId: extra.id, assigneeUserId: t.admin.id });
  const checkin = (await create(ctx, token, '/api/attendance/checkins', { sessionId: own.session, contactIds: [extra2.id] })).checkIns[0];
  const household = await create(ctx, token, '/api/crm/households', { members: [{ contactId: extra.id, role: 'Head' }] });
  const leader = await newUser(ctx, t, ALL_PERMISSIONS.filter((p) => p !== 'hierarchy:all'), { contactId: await firstId(ctx, t.id, 'group_memberships', `group_id = ${riverside} and role = 'Leader'`).then((id) => contactOfMembership(ctx, t.id, id)) });

  const ids: Fixtures = {
    ...own,
    contact: extra.id, contact2: extra2.id, relationship: relationship.id, request: request.id, user: user.id, role: role.id,
    notification, template: template.id, webhook: webhook.id,
    delivery, message: message.id, reportTemplate: reportTemplate.id, submission: submission.id,
    list: list.id, task: task.id, pipeline: await firstId(ctx, t.id, 'pipelines'), step: await firstId(ctx, t.id, 'pipeline_steps'),
    card: await firstId(ctx, t.id, 'pipeline_cards'), automation: await firstId(ctx, t.id, 'automations'),
    fund: await firstId(ctx, t.id, 'funds'), batch: await firstId(ctx, t.id, 'batches'), contribution: await firstId(ctx, t.id, 'contributions'),
    pledge: await firstId(ctx, t.id, 'pledges'), checkin: checkin.id, household: household.id, groupCategory: fellowship, eventCategory: await firstId(ctx, t.id, 'event_categories'),
  };
  return { tenant: t, ids, invisible: { ...ids, ...invisibleObjects }, visibleNotLed: { ...ids, ...visibleObjects }, leader };
}

async function insertId(ctx: TestContext, tenantId: number, statement: string): Promise<number> {
  const [row] = await rows<{ id: string | number }>(ctx, tenantId, sql.raw(statement));
  return Number(row.id);
}

async function contactOfMembership(ctx: TestContext, tenantId: number, membershipId: number): Promise<number> {
  const [row] = await rows<{ contact_id: string }>(ctx, tenantId, sql.raw(`select contact_id from group_memberships where tenant_id = ${tenantId} and id = ${membershipId}`));
  return Number(row.contact_id);
}
