import { sql } from 'drizzle-orm';
import { beforeAll, describe, expect, it } from 'vitest';
import { api, expectError, setupTestApp } from '../helpers/app.js';
import { newTenant, newUser, type TestTenant, type TestUser } from '../helpers/factories.js';
import { newActors, newTree } from '../helpers/groups.factories.js';
import { EXPORT_READS } from '../../src/modules/privacy/privacy.service.js';
import { count, person } from './privacy.helpers.js';

const ctx = setupTestApp();

describe('privacy routes: authentication, permissions, tenants', () => {
  let tenant: TestTenant;
  let foreign: TestTenant;
  let mine: { id: number };
  let mine2: { id: number };
  let theirs: { id: number };
  let theirs2: { id: number };
  let actors: Awaited<ReturnType<typeof newActors>>;
  let officer: TestUser;

  beforeAll(async () => {
    tenant = await newTenant(ctx);
    foreign = await newTenant(ctx);
    actors = await newActors(ctx, tenant, await newTree(ctx, tenant));
    officer = await newUser(ctx, tenant, ['privacy:write']);
    mine = await person(ctx, tenant, 'Shared', 'Name', { emails: [{ value: 'shared@example.org' }] });
    mine2 = await person(ctx, tenant, 'Other', 'Mine');
    theirs = await person(ctx, foreign, 'Shared', 'Name', { emails: [{ value: 'shared@example.org' }] });
    theirs2 = await person(ctx, foreign, 'Shared', 'Name');
  });

  const routes = (id: number, sourceId: number) => [
    { name: 'export', call: (token?: string) => api(ctx.app, token).get(`/api/crm/contacts/${id}/export`) },
    { name: 'erase', call: (token?: string) => api(ctx.app, token).post(`/api/crm/contacts/${id}/erase`, { confirm: true }) },
    { name: 'merge', call: (token?: string) => api(ctx.app, token).post(`/api/crm/contacts/${id}/merge`, { sourceIds: [sourceId] }) },
  ];

  it('401 without a token, whatever the id or body', async () => {
    for (const route of routes(mine.id, mine2.id)) expectError(await route.call(), 401);
    expectError(await api(ctx.app).get('/api/crm/duplicates'), 401);
    expectError(await api(ctx.app).post('/api/crm/contacts/abc/erase', {}), 401);
  });

  it('export, erase and merge need privacy:write: leaders, members and contacts:write holders get 403', async () => {
    const writer = await newUser(ctx, tenant, ['contacts:read', 'contacts:write', 'hierarchy:all']);
    for (const user of [actors.zoneLeader, actors.fellowshipLeader, actors.member, actors.loner, writer]) {
      for (const route of routes(mine.id, mine2.id)) expectError(await route.call(user.token), 403);
    }
    expect(await count(ctx, tenant, sql`SELECT count(*) FROM contacts WHERE id IN (${mine.id}, ${mine2.id})`)).toBe(2);
  });

  it('duplicates need contacts:read: leaders may list, members and a privacy:write-only officer may not', async () => {
    for (const user of [actors.admin, actors.zoneLeader, actors.fellowshipLeader]) expect((await api(ctx.app, user.token).get('/api/crm/duplicates')).statusCode).toBe(200);
    for (const user of [actors.member, actors.loner, officer]) expectError(await api(ctx.app, user.token).get('/api/crm/duplicates'), 403);
  });

  it('an export, being everything about the person, needs every read permission of what it carries besides privacy:write', async () => {
    expect(expectError(await api(ctx.app, officer.token).get(`/api/crm/contacts/${mine.id}/export`), 403)).toMatch(/needs contacts:read, .*finance:read, .*hierarchy:all$/);
    const almost = await newUser(ctx, tenant, ['privacy:write', ...EXPORT_READS.filter((p) => p !== 'care:read')]);
    expect(expectError(await api(ctx.app, almost.token).get(`/api/crm/contacts/${mine.id}/export`), 403)).toMatch(/needs care:read$/);
    const full = await newUser(ctx, tenant, ['privacy:write', ...EXPORT_READS]);
    const res = await api(ctx.app, full.token).get(`/api/crm/contacts/${mine.id}/export`);
    expect(res.statusCode, res.body).toBe(200);
    expect(res.json().contact.id).toBe(mine.id);
  });

  it("another tenant's contacts are 404 everywhere, and nothing of either tenant changes", async () => {
    const token = tenant.admin.token;
    for (const route of routes(theirs.id, mine2.id)) expect(expectError(await route.call(token), 404), route.name).toBe(`Contact with id ${theirs.id} not found`);
    // A foreign source merged into one of mine: 404 naming it, nothing moved.
    expect(expectError(await api(ctx.app, token).post(`/api/crm/contacts/${mine.id}/merge`, { sourceIds: [mine2.id, theirs.id] }), 404)).toBe(`Contact with id ${theirs.id} not found`);
    expect(await count(ctx, tenant, sql`SELECT count(*) FROM contacts WHERE id IN (${mine.id}, ${mine2.id})`)).toBe(2);
    expect(await count(ctx, foreign, sql`SELECT count(*) FROM contacts WHERE id IN (${theirs.id}, ${theirs2.id})`)).toBe(2);
    expect(await count(ctx, foreign, sql`SELECT count(*) FROM contact_emails WHERE contact_id = ${theirs.id}`)).toBe(1);
    expect(await count(ctx, foreign, sql`SELECT count(*) FROM persons WHERE contact_id = ${theirs.id} AND first_name = 'Shared'`)).toBe(1);
  });

  it('duplicates never pair across tenants, and each tenant sees only its own pairs', async () => {
    const page = (await api(ctx.app, tenant.admin.token).get('/api/crm/duplicates')).json();
    const ids = page.data.flatMap((p: { contacts: { id: number }[] }) => p.contacts.map((c) => c.id));
    expect(ids).not.toContain(theirs.id);
    expect(ids).not.toContain(theirs2.id);
    const theirsPage = (await api(ctx.app, foreign.admin.token).get('/api/crm/duplicates')).json();
    expect(theirsPage.data.map((p: { contacts: { id: number }[] }) => p.contacts.map((c) => c.id))).toEqual([[theirs.id, theirs2.id]]);
    expect(theirsPage.total).toBe(1);
  });

  it("an export holds nothing of another tenant's records", async () => {
    const doc = (await api(ctx.app, tenant.admin.token).get(`/api/crm/contacts/${mine.id}/export`)).json();
    expect(JSON.stringify(doc)).not.toContain(`"contactId":${theirs.id}`);
    expect(doc.timeline.every((c: { data: { contactId?: number }; entity: { id: number } }) => c.entity.id === mine.id || c.data.contactId === mine.id)).toBe(true);
  });
});
