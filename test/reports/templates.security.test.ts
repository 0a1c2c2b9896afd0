import { beforeAll, describe, expect, it } from 'vitest';
import { api, expectError, setupTestApp } from '../helpers/app.js';
import { newTenant, newUser, type TestTenant } from '../helpers/factories.js';
import { categoryId, newActors, newTree } from '../helpers/groups.factories.js';
import { FIELDS, changesOf, newTemplate } from './helpers.js';

const ctx = setupTestApp();

describe('templates and submissions: security', () => {
  let t: TestTenant;
  let other: TestTenant;
  let tree: Awaited<ReturnType<typeof newTree>>;
  let actors: Awaited<ReturnType<typeof newActors>>;
  let tpl: { id: number };
  let submission: number;
  const values = { attendance: 1, met: true };

  beforeAll(async () => {
    t = await newTenant(ctx);
    other = await newTenant(ctx);
    tree = await newTree(ctx, t);
    actors = await newActors(ctx, t, tree);
    tpl = await newTemplate(ctx, t);
    const res = await api(ctx.app, actors.zoneLeader.token).post(`/api/reports/templates/${tpl.id}/submissions`, { groupId: tree.fellowshipA1.id, values });
    submission = res.json().id;
  });

  it('no token 401; without reports:read 403 (the Member role)', async () => {
    for (const [method, url] of [['get', '/api/reports/templates'], ['get', `/api/reports/templates/${tpl.id}/rollup`], ['get', '/api/reports'], ['get', '/api/reports/growth'], ['get', '/api/dashboard']] as const) {
      expect(expectError(await api(ctx.app)[method](url), 401)).toBeTruthy();
    }
    const member = api(ctx.app, actors.member.token);
    expect(expectError(await member.get('/api/reports/templates'), 403)).toMatch(/reports:read/);
    expect(expectError(await member.post(`/api/reports/templates/${tpl.id}/submissions`, { groupId: tree.fellowshipB1.id, values }), 403)).toMatch(/reports:read/);
    expect(expectError(await member.get('/api/reports'), 403)).toMatch(/reports:read/);
  });

  it('templates are written only with hierarchy:all', async () => {
    const leader = api(ctx.app, actors.zoneLeader.token);
    const cat = await categoryId(ctx, t, 'Fellowship');
    expect(expectError(await leader.post('/api/reports/templates', { name: 'X', groupCategoryId: cat, fields: FIELDS }), 403)).toMatch(/hierarchy:all/);
    expect(expectError(await leader.put(`/api/reports/templates/${tpl.id}`, { name: 'Y' }), 403)).toMatch(/hierarchy:all/);
    expect(expectError(await leader.delete(`/api/reports/templates/${tpl.id}`), 403)).toMatch(/hierarchy:all/);
    expect((await leader.get(`/api/reports/templates/${tpl.id}`)).statusCode).toBe(200);
    const reporter = await newUser(ctx, t, ['reports:read', 'hierarchy:all']);
    expect((await api(ctx.app, reporter.token).post('/api/reports/templates', { name: 'Z', groupCategoryId: cat, fields: FIELDS })).statusCode).toBe(201);
  });

  it('submitting needs the group inside a led subtree: invisible 404, visible not led 403', async () => {
    const fl = api(ctx.app, actors.fellowshipLeader.token);
    expect(expectError(await fl.post(`/api/reports/templates/${tpl.id}/submissions`, { groupId: tree.fellowshipB1.id, values }), 404)).toMatch(/Group/);
    expect(expectError(await fl.post(`/api/reports/templates/${tpl.id}/submissions`, { groupId: tree.fellowshipA1.id, values }), 403)).toMatch(/lead/);
    expect(expectError(await api(ctx.app, actors.zoneLeader.token).post(`/api/reports/templates/${tpl.id}/submissions`, { groupId: tree.fellowshipB1.id, values }), 404)).toMatch(/Group/);
    expect((await changesOf(ctx, t, 'report.submitted')).length).toBe(1);
  });

  it('another leader cannot change a submission (403); an invisible one is 404', async () => {
    const fl = api(ctx.app, actors.fellowshipLeader.token);
    expect(expectError(await fl.put(`/api/reports/submissions/${submission}`, { values }), 403)).toMatch(/submitter/);
    expect(expectError(await fl.delete(`/api/reports/submissions/${submission}`), 403)).toMatch(/submitter/);
    const res = await api(ctx.app, t.admin.token).post(`/api/reports/templates/${tpl.id}/submissions`, { groupId: tree.fellowshipB1.id, values });
    expect(expectError(await api(ctx.app, actors.zoneLeader.token).put(`/api/reports/submissions/${res.json().id}`, { values }), 404)).toMatch(/Submission/);
    const list = (await api(ctx.app, actors.zoneLeader.token).get(`/api/reports/templates/${tpl.id}/submissions`)).json();
    expect(list.data.map((s: { group: { id: number } }) => s.group.id)).toEqual([tree.fellowshipA1.id]);
  });

  it("another tenant's template, submission and groups are 404 / empty", async () => {
    const o = api(ctx.app, other.admin.token);
    expect(expectError(await o.get(`/api/reports/templates/${tpl.id}`), 404)).toMatch(/Report template/);
    expect(expectError(await o.put(`/api/reports/templates/${tpl.id}`, { name: 'Hijack' }), 404)).toMatch(/Report template/);
    expect(expectError(await o.delete(`/api/reports/templates/${tpl.id}`), 404)).toMatch(/Report template/);
    expect(expectError(await o.get(`/api/reports/templates/${tpl.id}/submissions`), 404)).toMatch(/Report template/);
    expect(expectError(await o.get(`/api/reports/templates/${tpl.id}/rollup`), 404)).toMatch(/Report template/);
    expect(expectError(await o.put(`/api/reports/submissions/${submission}`, { values }), 404)).toMatch(/Submission/);
    expect(expectError(await o.delete(`/api/reports/submissions/${submission}`), 404)).toMatch(/Submission/);
    expect((await o.get('/api/reports/templates')).json()).toEqual({ data: [], total: 0, page: 1, limit: 20 });
    const mine = await newTemplate(ctx, other);
    expect(expectError(await o.post(`/api/reports/templates/${mine.id}/submissions`, { groupId: tree.fellowshipA1.id, values }), 404)).toMatch(/Group/);
    expect(expectError(await o.get(`/api/reports/templates/${mine.id}/rollup?groupId=${tree.church.id}`), 404)).toMatch(/Group/);
    expect(expectError(await o.get(`/api/dashboard?groupId=${tree.church.id}`), 404)).toMatch(/Group/);
    expect(expectError(await o.get(`/api/reports/group-health?groupId=${tree.church.id}`), 404)).toMatch(/Group/);
  });
});
