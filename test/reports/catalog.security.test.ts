import { beforeAll, describe, expect, it } from 'vitest';
import { api, expectError, setupTestApp } from '../helpers/app.js';
import { newTenant, newUser, type TestTenant } from '../helpers/factories.js';
import { newActors, newTree } from '../helpers/groups.factories.js';
import { newPerson } from '../helpers/contacts.factories.js';

const ctx = setupTestApp();

const ALL = [
  'attendance-trend', 'attendance-by-group', 'first-time-guests', 'absentees', 'retention-funnel', 'growth', 'group-health', 'event-activities',
  'giving-summary', 'giving-by-donor', 'lapsed-givers', 'pledge-progress', 'task-throughput', 'occasions',
];

describe('CSV output', () => {
  it('guards formula cells and quotes per RFC 4180', async () => {
    const t = await newTenant(ctx);
    const a = await newPerson(ctx, t, '=HYPERLINK("x")', 'Smith, Jr', { person: { firstName: '=HYPERLINK("x")', lastName: 'Smith, Jr', dateOfBirth: '1990-03-10' } });
    const b = await newPerson(ctx, t, '+1', '@home', { person: { firstName: '-2', lastName: '@home', dateOfBirth: '1991-03-11' } });
    const res = await api(ctx.app, t.admin.token).get('/api/reports/occasions?from=2025-03-01&to=2025-03-31&format=csv');
    expect(res.body.split('\r\n')).toEqual([
      'Contact id,Contact,Type,Date,Next on,Years',
      `${a.id},"'=HYPERLINK(""x"") Smith, Jr",Birthday,1990-03-10,2025-03-10,35`,
      `${b.id},'-2 @home,Birthday,1991-03-11,2025-03-11,34`,
      '',
    ]);
    const json = (await api(ctx.app, t.admin.token).get('/api/reports/occasions?from=2025-03-01&to=2025-03-31')).json();
    expect(json.rows[0].contact.firstName).toBe('=HYPERLINK("x")');
  });
});

describe('report catalog and permissions', () => {
  let t: TestTenant;
  let other: TestTenant;
  let tree: Awaited<ReturnType<typeof newTree>>;
  let actors: Awaited<ReturnType<typeof newActors>>;

  beforeAll(async () => {
    t = await newTenant(ctx);
    other = await newTenant(ctx);
    tree = await newTree(ctx, t);
    actors = await newActors(ctx, t, tree);
  });

  const keys = async (token: string) => (await api(ctx.app, token).get('/api/reports')).json().data.map((r: { key: string }) => r.key);

  it('the admin runs every report; the catalog lists parameters and permissions', async () => {
    const res = await api(ctx.app, t.admin.token).get('/api/reports');
    expect(res.statusCode).toBe(200);
    const body = res.json();
    expect(body.data.map((r: { key: string }) => r.key)).toEqual(ALL);
    expect(body.total).toBe(ALL.length);
    const trend = body.data[0];
    expect(trend.permissions).toEqual(['reports:read', 'attendance:read']);
    expect(trend.parameters.map((p: { key: string }) => p.key)).toEqual(['from', 'to', 'groupId', 'includeDescendants', 'interval', 'format']);
    expect(trend.parameters.find((p: { key: string }) => p.key === 'interval')).toEqual({ key: 'interval', type: 'string', required: false, default: 'week', options: ['week', 'month'] });
    const giving = body.data.find((r: { key: string }) => r.key === 'giving-summary');
    expect(giving.parameters.map((p: { key: string }) => p.key)).toEqual(['from', 'to', 'interval', 'fundId', 'format']);
    for (const key of ALL) expect((await api(ctx.app, t.admin.token).get(`/api/reports/${key}`)).statusCode, key).toBe(200);
  });

  it('each role sees only what it may run, and 403 on the others', async () => {
    expect(await keys(actors.zoneLeader.token)).toEqual(ALL.filter((k) => !['giving-summary', 'giving-by-donor', 'lapsed-givers', 'pledge-progress'].includes(k)));
    const treasurer = await newUser(ctx, t, 'Treasurer');
    expect(await keys(treasurer.token)).toEqual(['growth', 'giving-summary', 'giving-by-donor', 'lapsed-givers', 'pledge-progress', 'occasions']);
    expect(expectError(await api(ctx.app, treasurer.token).get('/api/reports/attendance-trend'), 403)).toMatch(/attendance:read/);
    expect(expectError(await api(ctx.app, treasurer.token).get('/api/reports/task-throughput'), 403)).toMatch(/tasks:read/);
    expect(expectError(await api(ctx.app, actors.zoneLeader.token).get('/api/reports/pledge-progress'), 403)).toMatch(/finance:read/);
    const eventsOnly = await newUser(ctx, t, ['reports:read', 'events:read']);
    expect(await keys(eventsOnly.token)).toEqual(['event-activities']);
    expect(expectError(await api(ctx.app, eventsOnly.token).get('/api/reports/growth'), 403)).toMatch(/contacts:read/);
    const noReports = await newUser(ctx, t, ['contacts:read', 'attendance:read', 'finance:read']);
    expect(expectError(await api(ctx.app, noReports.token).get('/api/reports/growth'), 403)).toMatch(/reports:read/);
    expect(expectError(await api(ctx.app).get('/api/reports/growth'), 401)).toBeTruthy();
  });

  it('bad input: unknown key 404, unknown or malformed parameter 400 naming it, windows', async () => {
    const admin = api(ctx.app, t.admin.token);
    expect(expectError(await admin.get('/api/reports/nope'), 404)).toBe('Report nope not found');
    expect(expectError(await admin.get('/api/reports/growth?colour=red'), 400)).toBe('querystring/colour is not a parameter of report growth');
    expect(expectError(await admin.get('/api/reports/growth?interval=week'), 400)).toMatch(/querystring\/interval/);
    expect(expectError(await admin.get('/api/reports/growth?from=2025-02-30'), 400)).toBe('querystring/from must be a date YYYY-MM-DD');
    expect(expectError(await admin.get('/api/reports/growth?groupId=abc'), 400)).toMatch(/querystring\/groupId/);
    expect(expectError(await admin.get('/api/reports/growth?groupId=0'), 400)).toMatch(/querystring\/groupId/);
    expect(expectError(await admin.get('/api/reports/growth?includeDescendants=maybe'), 400)).toMatch(/querystring\/includeDescendants/);
    expect(expectError(await admin.get('/api/reports/growth?format=xml'), 400)).toMatch(/querystring\/format/);
    expect(expectError(await admin.get('/api/reports/absentees?missed=53'), 400)).toMatch(/querystring\/missed/);
    expect(expectError(await admin.get('/api/reports/attendance-trend?interval=day'), 400)).toMatch(/querystring\/interval/);
    expect(expectError(await admin.get('/api/reports/growth?from=2025-02-01&to=2025-01-31'), 400)).toMatch(/from/);
    expect(expectError(await admin.get('/api/reports/growth?from=2020-01-01&to=2025-01-02'), 400)).toMatch(/5 years/);
    expect((await admin.get('/api/reports/growth?from=2020-01-01&to=2025-01-01')).statusCode).toBe(200);
    expect(expectError(await admin.get('/api/reports/growth?from=2025-01-01&from=2025-02-01'), 400)).toMatch(/from/);
    expect(expectError(await admin.get('/api/reports/group-health?groupId=999999'), 404)).toBe('Group with id 999999 not found');
  });

  it('invisible and foreign groups are 404; a visible group outside the led subtree is allowed (visible rows only)', async () => {
    const zl = api(ctx.app, actors.zoneLeader.token);
    expect(expectError(await zl.get(`/api/reports/group-health?groupId=${tree.zoneB.id}`), 404)).toMatch(/Group/);
    expect(expectError(await zl.get(`/api/dashboard?groupId=${tree.fellowshipB1.id}`), 404)).toMatch(/Group/);
    const church = (await zl.get(`/api/reports/group-health?groupId=${tree.church.id}`)).json();
    expect(church.rows.map((r: { group: { name: string } }) => r.group.name)).not.toContain('Zone B');
    expect(expectError(await api(ctx.app, other.admin.token).get(`/api/reports/event-activities?groupId=${tree.zoneA.id}`), 404)).toMatch(/Group/);
  });
});
