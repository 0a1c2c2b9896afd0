import { describe, expect, it, beforeAll } from 'vitest';
import { addDays } from '../../src/lib/periods.js';
import { api, setupTestApp } from '../helpers/app.js';
import { newTenant, type TestTenant } from '../helpers/factories.js';
import { categoryId, newActors, newTree } from '../helpers/groups.factories.js';
import { changesOf, FIELDS, newTemplate, thisWeek, weeksAgo } from './helpers.js';

const ctx = setupTestApp();

describe('report templates', () => {
  it('creates, lists, reads, changes and deletes a template', async () => {
    const t = await newTenant(ctx);
    const admin = api(ctx.app, t.admin.token);
    const fellowship = await categoryId(ctx, t, 'Fellowship');
    const res = await admin.post('/api/reports/templates', { name: ' Weekly report ', description: 'Every week', groupCategoryId: fellowship, fields: FIELDS });
    expect(res.statusCode, res.body).toBe(201);
    const tpl = res.json();
    expect(tpl).toMatchObject({
      name: 'Weekly report', description: 'Every week', groupCategoryId: fellowship, groupCategory: { id: fellowship, name: 'Fellowship' },
      frequency: 'Weekly', isActive: true,
    });
    expect(tpl.fields[0]).toEqual({ key: 'attendance', label: 'Attendance', type: 'number', required: true, options: null });
    expect(tpl.fields[5]).toEqual({ key: 'venue', label: 'Venue', type: 'select', required: false, options: ['Home', 'Church'] });
    const zone = await categoryId(ctx, t, 'Zone');
    const monthly = (await admin.post('/api/reports/templates', { name: 'A monthly zone report', groupCategoryId: zone, frequency: 'Monthly', fields: [{ key: 'n', label: 'N', type: 'number' }] })).json();
    expect(monthly).toMatchObject({ frequency: 'Monthly', fields: [{ key: 'n', required: false, options: null }] });

    const list = (await admin.get('/api/reports/templates')).json();
    expect(list).toMatchObject({ total: 2, page: 1, limit: 20 });
    expect(list.data.map((x: { id: number }) => x.id)).toEqual([monthly.id, tpl.id]);
    expect((await admin.get(`/api/reports/templates?groupCategoryId=${zone}`)).json().data.map((x: { id: number }) => x.id)).toEqual([monthly.id]);
    expect((await admin.get(`/api/reports/templates/${tpl.id}`)).json()).toEqual(tpl);

    const put = await admin.put(`/api/reports/templates/${tpl.id}`, { name: 'Renamed', isActive: false, fields: [{ key: 'x', label: 'X', type: 'text', required: true }] });
    expect(put.statusCode, put.body).toBe(200);
    expect(put.json()).toMatchObject({ name: 'Renamed', isActive: false, description: 'Every week', fields: [{ key: 'x', type: 'text', required: true, options: null }] });
    expect((await admin.get('/api/reports/templates?isActive=false')).json().data.map((x: { id: number }) => x.id)).toEqual([tpl.id]);

    expect((await admin.delete(`/api/reports/templates/${tpl.id}`)).statusCode).toBe(204);
    expect((await admin.get(`/api/reports/templates/${tpl.id}`)).statusCode).toBe(404);
  });
});

describe('submissions and rollup', () => {
  let t: TestTenant;
  let tree: Awaited<ReturnType<typeof newTree>>;
  let actors: Awaited<ReturnType<typeof newActors>>;
  let tpl: { id: number; name: string };
  const ids: Record<string, number> = {};

  beforeAll(async () => {
    t = await newTenant(ctx);
    tree = await newTree(ctx, t);
    actors = await newActors(ctx, t, tree);
    tpl = await newTemplate(ctx, t);
  });

  it('a leader submits for a group of their subtree; the period is the first day of the week', async () => {
    const zl = api(ctx.app, actors.zoneLeader.token);
    const res = await zl.post(`/api/reports/templates/${tpl.id}/submissions`, {
      groupId: tree.fellowshipA1.id, period: addDays(weeksAgo(1), 3), values: { attendance: 10, visitors: 2, met: true, notes: ' good ', venue: 'Home', meetingDate: addDays(weeksAgo(1), 3) },
    });
    expect(res.statusCode, res.body).toBe(201);
    const s = res.json();
    ids.a1last = s.id;
    expect(s).toMatchObject({
      template: { id: tpl.id, name: tpl.name }, group: { id: tree.fellowshipA1.id, name: 'Fellowship A1' }, period: weeksAgo(1),
      values: { attendance: 10, visitors: 2, met: true, notes: 'good', venue: 'Home' }, submittedBy: { id: actors.zoneLeader.id, username: actors.zoneLeader.username },
    });
    expect(Object.keys(s).sort()).toEqual(['group', 'id', 'period', 'submittedAt', 'submittedBy', 'template', 'updatedAt', 'values']);
    const [change] = await changesOf(ctx, t, 'report.submitted');
    expect(change).toMatchObject({ entityType: 'report', entityId: s.id, actorUserId: actors.zoneLeader.id });
    expect(change.data).toMatchObject({ groupId: tree.fellowshipA1.id, templateId: tpl.id, period: weeksAgo(1), submissionId: s.id });
  });

  it('defaults the period to this week; fellowship leader and admin submit', async () => {
    const a1 = await api(ctx.app, actors.zoneLeader.token).post(`/api/reports/templates/${tpl.id}/submissions`, { groupId: tree.fellowshipA1.id, values: { attendance: 7, met: true } });
    expect(a1.statusCode, a1.body).toBe(201);
    expect(a1.json().period).toBe(thisWeek());
    const a2 = await api(ctx.app, actors.fellowshipLeader.token).post(`/api/reports/templates/${tpl.id}/submissions`, { groupId: tree.fellowshipA2.id, period: thisWeek(), values: { attendance: 5, visitors: 1, met: true } });
    expect(a2.statusCode, a2.body).toBe(201);
    ids.a2 = a2.json().id;
    const b1 = await api(ctx.app, t.admin.token).post(`/api/reports/templates/${tpl.id}/submissions`, { groupId: tree.fellowshipB1.id, period: weeksAgo(2), values: { attendance: 4, met: false } });
    expect(b1.statusCode, b1.body).toBe(201);
    expect(b1.json().submittedBy).toEqual({ id: t.admin.id, username: 'admin' });
  });

  it('a repeated POST with the same Idempotency-Key replays the first answer', async () => {
    const body = { groupId: tree.fellowshipB1.id, period: weeksAgo(6), values: { attendance: 1, met: true } };
    const headers = { 'idempotency-key': 'weekly-b1-1' };
    const first = await api(ctx.app, t.admin.token).post(`/api/reports/templates/${tpl.id}/submissions`, body, headers);
    expect(first.statusCode, first.body).toBe(201);
    const again = await api(ctx.app, t.admin.token).post(`/api/reports/templates/${tpl.id}/submissions`, body, headers);
    expect(again.statusCode).toBe(201);
    expect(again.json()).toEqual(first.json());
    expect((await changesOf(ctx, t, 'report.submitted')).filter((c) => c.entityId === first.json().id)).toHaveLength(1);
    expect((await api(ctx.app, t.admin.token).delete(`/api/reports/submissions/${first.json().id}`)).statusCode).toBe(204);
  });

  it('lists submissions in scope, newest period first', async () => {
    const all = (await api(ctx.app, t.admin.token).get(`/api/reports/templates/${tpl.id}/submissions`)).json();
    expect(all.total).toBe(4);
    expect(all.data.map((s: { period: string; group: { name: string } }) => `${s.period} ${s.group.name}`)).toEqual([
      `${thisWeek()} Fellowship A1`, `${thisWeek()} Fellowship A2`, `${weeksAgo(1)} Fellowship A1`, `${weeksAgo(2)} Fellowship B1`,
    ]);
    const zone = (await api(ctx.app, actors.zoneLeader.token).get(`/api/reports/templates/${tpl.id}/submissions`)).json();
    expect(zone.total).toBe(3);
    const fl = (await api(ctx.app, actors.fellowshipLeader.token).get(`/api/reports/templates/${tpl.id}/submissions?groupId=${tree.fellowshipA2.id}`)).json();
    expect(fl.data.map((s: { group: { id: number } }) => s.group.id)).toEqual([tree.fellowshipA2.id]);
    const member = (await api(ctx.app, actors.fellowshipLeader.token).get(`/api/reports/templates/${tpl.id}/submissions`)).json();
    expect(member.total).toBe(3);
    const window = (await api(ctx.app, t.admin.token).get(`/api/reports/templates/${tpl.id}/submissions?from=${weeksAgo(1)}&to=${weeksAgo(1)}`)).json();
    expect(window.data.map((s: { id: number }) => s.id)).toEqual([ids.a1last]);
    const sub = (await api(ctx.app, t.admin.token).get(`/api/reports/templates/${tpl.id}/submissions?groupId=${tree.zoneB.id}&limit=1`)).json();
    expect(sub).toMatchObject({ total: 1, limit: 1 });
    const none = (await api(ctx.app, actors.zoneLeader.token).get(`/api/reports/templates/${tpl.id}/submissions?groupId=${tree.fellowshipB1.id}`)).json();
    expect(none).toEqual({ data: [], total: 0, page: 1, limit: 20 });
  });

  it('rolls up who has not reported and the sums of numeric fields', async () => {
    const url = `/api/reports/templates/${tpl.id}/rollup?from=${weeksAgo(2)}&to=${thisWeek()}`;
    const admin = (await api(ctx.app, t.admin.token).get(url)).json();
    const A1 = { id: tree.fellowshipA1.id, name: 'Fellowship A1' };
    const A2 = { id: tree.fellowshipA2.id, name: 'Fellowship A2' };
    const B1 = { id: tree.fellowshipB1.id, name: 'Fellowship B1' };
    expect(admin).toEqual({
      template: { id: tpl.id, name: tpl.name }, from: weeksAgo(2), to: thisWeek(),
      periods: [
        { period: weeksAgo(2), submitted: 1, missing: [A1, A2], sums: { attendance: 4, visitors: 0 } },
        { period: weeksAgo(1), submitted: 1, missing: [A2, B1], sums: { attendance: 10, visitors: 2 } },
        { period: thisWeek(), submitted: 2, missing: [B1], sums: { attendance: 12, visitors: 1 } },
      ],
    });
    // The zone leader's numbers are their subtree's only.
    const zone = (await api(ctx.app, actors.zoneLeader.token).get(url)).json();
    expect(zone.periods).toEqual([
      { period: weeksAgo(2), submitted: 0, missing: [A1, A2], sums: { attendance: 0, visitors: 0 } },
      { period: weeksAgo(1), submitted: 1, missing: [A2], sums: { attendance: 10, visitors: 2 } },
      { period: thisWeek(), submitted: 2, missing: [], sums: { attendance: 12, visitors: 1 } },
    ]);
    // A fellowship leader sees their (private) fellowship and the public ones, not the private branch.
    const fl = (await api(ctx.app, actors.fellowshipLeader.token).get(url)).json();
    expect(fl.periods.map((p: { submitted: number; sums: { attendance: number } }) => [p.submitted, p.sums.attendance])).toEqual([[0, 0], [1, 10], [2, 12]]);
    const flOwn = (await api(ctx.app, actors.fellowshipLeader.token).get(`${url}&groupId=${tree.fellowshipA2.id}`)).json();
    expect(flOwn.periods.map((p: { submitted: number; sums: { attendance: number } }) => [p.submitted, p.sums.attendance])).toEqual([[0, 0], [0, 0], [1, 5]]);
    // A subtree asked for by id; without descendants only that group (not a fellowship: nothing due).
    const b = (await api(ctx.app, t.admin.token).get(`${url}&groupId=${tree.zoneB.id}`)).json();
    expect(b.periods.map((p: { submitted: number; missing: unknown[] }) => [p.submitted, p.missing.length])).toEqual([[1, 0], [0, 1], [0, 1]]);
    const only = (await api(ctx.app, t.admin.token).get(`${url}&groupId=${tree.zoneB.id}&includeDescendants=false`)).json();
    expect(only.periods.every((p: { submitted: number; missing: unknown[] }) => p.submitted === 0 && p.missing.length === 0)).toBe(true);
    // Default window: the last 4 weeks.
    const def = (await api(ctx.app, t.admin.token).get(`/api/reports/templates/${tpl.id}/rollup`)).json();
    expect(def.periods.map((p: { period: string }) => p.period)).toEqual([weeksAgo(3), weeksAgo(2), weeksAgo(1), thisWeek()]);
  });

  it('the submitter edits within 7 days; admin edits and deletes any', async () => {
    const res = await api(ctx.app, actors.fellowshipLeader.token).put(`/api/reports/submissions/${ids.a2}`, { values: { attendance: 6, met: true } });
    expect(res.statusCode, res.body).toBe(200);
    expect(res.json().values).toEqual({ attendance: 6, met: true });
    expect((await changesOf(ctx, t, 'report.submitted')).filter((c) => c.entityId === ids.a2)).toHaveLength(1);
    const edits = (await changesOf(ctx, t, 'report.updated')).filter((c) => c.entityId === ids.a2);
    expect(edits).toHaveLength(1);
    expect(edits[0].changes).toEqual({ values: { from: { attendance: 5, visitors: 1, met: true }, to: { attendance: 6, met: true } } });
    expect(edits[0].data).toMatchObject({ submissionId: ids.a2, groupId: tree.fellowshipA2.id });
    const adm = await api(ctx.app, t.admin.token).put(`/api/reports/submissions/${ids.a1last}`, { values: { attendance: 11, met: true } });
    expect(adm.statusCode, adm.body).toBe(200);
    expect((await api(ctx.app, actors.fellowshipLeader.token).delete(`/api/reports/submissions/${ids.a2}`)).statusCode).toBe(204);
    expect((await api(ctx.app, t.admin.token).get(`/api/reports/templates/${tpl.id}/submissions`)).json().total).toBe(3);
  });
});
