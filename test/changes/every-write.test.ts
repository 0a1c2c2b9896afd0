import { beforeAll, describe, expect, it } from 'vitest';
import { api, setupTestApp } from '../helpers/app.js';
import { PASSWORD } from '../helpers/factories.js';
import { fixtureTenant, type FixtureTenant, type Fixtures } from '../safety/fixtures.js';
import { requestOf, ROUTES } from '../safety/route-table.js';
import { recorded } from './helpers.js';

/**
 * Issue 11: "a change is recorded in the same transaction as the write it describes, for every write
 * of every module". Generated from the registered routes, so a new write route that records nothing
 * fails here: every non-GET route, called by an admin with the safety suite's fixtures, succeeds and
 * records at least one change, each with the admin as actor and an entity.
 */
const ctx = setupTestApp();
let a: FixtureTenant;

/** Routes that write nothing a church would audit, with the reason. */
const RECORDS_NOTHING: Record<string, string> = {
  'POST /api/search/contacts': 'a search sent as a POST (the criteria are a body); reads only',
  'POST /api/finance/statements/bulk': 'renders statements into a ZIP; reads only',
  'PUT /api/notifications/:id/read': "a user's own inbox read mark",
  'PUT /api/notifications/read-all': "a user's own inbox read marks",
  'POST /api/notifications/messages/preview': "renders a message for its first recipient and counts the audience; writes nothing",
};

/**
 * Where the safety suite's body is valid but writes nothing (an empty import, an unchanged value) or
 * the fixture's state refuses the write by contract (a fund with gifts is deactivated, not deleted; a
 * request already approved cannot be rejected), a request that writes, on fresh objects made through
 * the API. Erase and merge get contacts of their own, so the other writes keep theirs.
 */
type Prepared = { url?: string; body?: unknown };
type Admin = ReturnType<typeof api>;
async function made(admin: Admin, url: string, body: unknown): Promise<Record<string, any>> {
  const res = await admin.post(url, body as never);
  if (res.statusCode >= 300) throw new Error(`POST ${url} → ${res.statusCode} ${res.body}`);
  return res.json();
}
const person = (admin: Admin, firstName: string) => made(admin, '/api/crm/contacts', { category: 'Person', person: { firstName, lastName: 'Sweep' } });
const PREPARED: Record<string, (f: Fixtures, admin: Admin) => Promise<Prepared>> = {
  'POST /api/users': async () => ({ body: { username: 'sweep-user', firstName: 'Sweep', lastName: 'User', password: 'a long enough password' } }),
  'PUT /api/users/:id': async () => ({ body: { email: 'changed.user@example.org' } }),
  'POST /api/users/:id/invitation': async (_f, admin) => ({
    url: `/api/users/${(await made(admin, '/api/users', { username: 'sweep-invited', email: 'sweep.invited@example.org', firstName: 'Sweep', lastName: 'Invited', invite: true })).id}/invitation`,
  }),
  'PUT /api/crm/contacts/:id': async () => ({ body: { person: { firstName: 'Changed' } } }),
  'POST /api/crm/contacts/import': async () => ({ body: { contacts: [{ firstName: 'Imported', lastName: 'Sweep' }] } }),
  'POST /api/crm/contacts/:id/erase': async (_f, admin) => ({ url: `/api/crm/contacts/${(await person(admin, 'Erased')).id}/erase` }),
  'POST /api/crm/contacts/:id/merge': async (_f, admin) => ({
    url: `/api/crm/contacts/${(await person(admin, 'Survivor')).id}/merge`, body: { sourceIds: [(await person(admin, 'Merged')).id] },
  }),
  'DELETE /api/crm/contacts/:id': async (_f, admin) => ({ url: `/api/crm/contacts/${(await person(admin, 'Deleted')).id}` }),
  'POST /api/crm/households/:id/members': async (_f, admin) => ({ body: { contactId: (await person(admin, 'Joining')).id, role: 'Child' } }),
  'DELETE /api/crm/households/:id': async (_f, admin) => ({
    url: `/api/crm/households/${(await made(admin, '/api/crm/households', { members: [{ contactId: (await person(admin, 'Moving')).id, role: 'Head' }] })).id}`,
  }),
  'PUT /api/groups/membership/:id': async () => ({ body: { isActive: false } }),
  'PUT /api/groups/membership-request/:id/reject': async (f, admin) => {
    const request = await made(admin, '/api/groups/membership-request', { groupId: f.group, contactId: (await person(admin, 'Rejected')).id });
    return { url: `/api/groups/membership-request/${request.id}/reject` };
  },
  'POST /api/groups/import': async () => ({ body: { groups: [{ name: 'Imported sweep group', category: 'Fellowship', parent: 'Zone A' }] } }),
  'DELETE /api/groups/:id': async (f, admin) => ({ url: `/api/groups/${(await made(admin, '/api/groups', { name: 'Doomed', categoryId: f.groupCategory, parentId: f.group })).id}` }),
  'POST /api/attendance/sessions/:id/records': async (f, admin) => ({ body: { contactIds: [(await person(admin, 'Present')).id] } }),
  'DELETE /api/attendance/sessions/:id/records/:contactId': async (f, admin) => {
    const contact = await person(admin, 'Absent');
    await made(admin, `/api/attendance/sessions/${f.session}/records`, { contactIds: [contact.id] });
    return { url: `/api/attendance/sessions/${f.session}/records/${contact.id}` };
  },
  'POST /api/attendance/checkins': async (f, admin) => ({ body: { sessionId: f.session, contactIds: [(await person(admin, 'Child')).id] } }),
  'POST /api/attendance/checkins/checkout': async (f, admin) => {
    const checkin = await made(admin, '/api/attendance/checkins', { sessionId: f.session, contactIds: [(await person(admin, 'Leaving')).id] });
    return { body: { sessionId: f.session, securityCode: checkin.securityCode } };
  },
  'DELETE /api/attendance/services/:id': async (f, admin) => ({
    url: `/api/attendance/services/${(await made(admin, '/api/attendance/services', { name: 'Doomed', groupId: f.group, dayOfWeek: 3, startTime: '19:00' })).id}`,
  }),
  'PUT /api/finance/batches/:id': async (_f, admin) => ({ url: `/api/finance/batches/${(await made(admin, '/api/finance/batches', { name: 'Open one', date: '2026-03-01' })).id}` }),
  'PUT /api/finance/batches/:id/close': async (_f, admin) => ({ url: `/api/finance/batches/${(await made(admin, '/api/finance/batches', { name: 'To close', date: '2026-03-01' })).id}/close` }),
  'DELETE /api/finance/batches/:id': async (_f, admin) => ({ url: `/api/finance/batches/${(await made(admin, '/api/finance/batches', { name: 'Doomed', date: '2026-03-01' })).id}` }),
  'DELETE /api/finance/funds/:id': async (_f, admin) => ({ url: `/api/finance/funds/${(await made(admin, '/api/finance/funds', { name: 'Doomed fund' })).id}` }),
  'POST /api/finance/contributions/import': async (f) => ({
    body: { rows: [{ contactId: String(f.contact), date: '2026-03-02', amount: 500, method: 'Cash', fund: 'General' }] },
  }),
  'POST /api/search/contacts': async () => ({ body: { conditions: [{ field: 'city', operator: 'eq', value: 'Kampala' }] } }),
  'POST /api/search/lists': async () => ({ body: { name: 'Sweep list', criteria: { conditions: [{ field: 'city', operator: 'eq', value: 'Kampala' }] } } }),
  'DELETE /api/tasks/pipelines/:id': async (_f, admin) => ({
    url: `/api/tasks/pipelines/${(await made(admin, '/api/tasks/pipelines', { name: 'Doomed', steps: [{ name: 'One', dueInDays: 1 }] })).id}`,
  }),
  'DELETE /api/reports/templates/:id': async (f, admin) => ({
    url: `/api/reports/templates/${(await made(admin, '/api/reports/templates', { name: 'Doomed', groupCategoryId: f.groupCategory, fields: [{ key: 'n', label: 'N', type: 'number', required: true }] })).id}`,
  }),
  'PUT /api/notifications/preferences': async () => ({ body: { email: { 'task.assigned': false } } }),
  'PUT /api/users/me/password': async () => ({ body: { currentPassword: PASSWORD, newPassword: 'a brand new long password' } }),
};

async function send(key: string, admin: Admin) {
  const base = requestOf(key, ROUTES[key], a.ids);
  const prepared = (await PREPARED[key]?.(a.ids, admin)) ?? {};
  const url = prepared.url || base.url;
  const payload = prepared.body ?? base.payload;
  const { result, changes } = await recorded(ctx, a.tenant.id, () =>
    ctx.app.inject({ method: base.method, url, payload: payload as never, headers: { authorization: `Bearer ${a.tenant.admin.token}` } }));
  return { result, changes, label: `${base.method} ${url}` };
}

interface Write { key: string; method: string }
const writes = (): Write[] =>
  ctx.app.registeredRoutes.flatMap((r) =>
    (Array.isArray(r.method) ? r.method : [r.method])
      .filter((m) => !['GET', 'HEAD'].includes(m) && r.url.startsWith('/api') && !r.config?.public)
      .map((m) => ({ key: `${m} ${r.url}`, method: m })),
  );

beforeAll(async () => {
  a = await fixtureTenant(ctx);
});

describe('every write records its change', () => {
  it('each write route, called by an admin, succeeds and records changes with the admin as actor', async () => {
    const admin = api(ctx.app, a.tenant.admin.token);
    // Deletes last, deepest paths first (a session's record before the session), so every other write
    // still finds its record; the password change last of all.
    const depth = (w: Write) => w.key.split('/').length;
    const order = (w: Write) => (w.key.includes('/me/password') ? 1000 : w.method === 'DELETE' ? 100 - depth(w) : 0);
    const all = writes().filter((w) => !RECORDS_NOTHING[w.key]).sort((x, y) => order(x) - order(y));
    expect(all.length).toBeGreaterThan(90);
    const wrong: string[] = [];
    for (const w of all) {
      const { result: res, changes, label } = await send(w.key, admin);
      if (res.statusCode >= 300) wrong.push(`${label} → ${res.statusCode} ${res.body.slice(0, 160)}`);
      else if (changes.length === 0) wrong.push(`${label} → ${res.statusCode} recorded nothing: ${res.body.slice(0, 160)}`);
      else if (changes.some((c) => c.actorUserId !== a.tenant.admin.id || !c.entityType || !(c.entityId > 0))) {
        wrong.push(`${label} → a change without the admin as actor or without an entity: ${JSON.stringify(changes)}`);
      }
    }
    expect(wrong).toEqual([]);
  });

  it('the routes said to record nothing are real routes, and do record nothing', async () => {
    const keys = writes().map((w) => w.key);
    expect(Object.keys(RECORDS_NOTHING).filter((k) => !keys.includes(k))).toEqual([]);
    const admin = api(ctx.app, a.tenant.admin.token);
    for (const key of Object.keys(RECORDS_NOTHING)) {
      const { result, changes } = await send(key, admin);
      expect(result.statusCode, `${key}: ${result.body}`).toBeLessThan(300);
      expect(changes, key).toEqual([]);
    }
  });
});
