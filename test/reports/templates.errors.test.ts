import { sql } from 'drizzle-orm';
import { beforeAll, describe, expect, it } from 'vitest';
import { addDays } from '../../src/lib/periods.js';
import { api, expectError, setupTestApp } from '../helpers/app.js';
import { newTenant, type TestTenant } from '../helpers/factories.js';
import { categoryId, newTree } from '../helpers/groups.factories.js';
import { changesOf, FIELDS, newTemplate, tenantSql, thisWeek, today, weeksAgo } from './helpers.js';

const ctx = setupTestApp();

describe('templates and submissions: bad input', () => {
  let t: TestTenant;
  let tree: Awaited<ReturnType<typeof newTree>>;
  let tpl: { id: number };
  let admin: ReturnType<typeof api>;

  beforeAll(async () => {
    t = await newTenant(ctx);
    tree = await newTree(ctx, t);
    tpl = await newTemplate(ctx, t);
    admin = api(ctx.app, t.admin.token);
  });

  it('template validation: fields count, duplicate keys, select without options, bad key, unknown category', async () => {
    const cat = await categoryId(ctx, t, 'Fellowship');
    const post = (body: Record<string, unknown>) => admin.post('/api/reports/templates', { name: 'X', groupCategoryId: cat, fields: FIELDS, ...body });
    expect(expectError(await post({ fields: [] }), 400)).toMatch(/fields/);
    expect(expectError(await post({ fields: Array.from({ length: 51 }, (_, i) => ({ key: `f${i}`, label: 'L', type: 'text' })) }), 400)).toMatch(/fields/);
    expect(expectError(await post({ fields: [{ key: 'a', label: 'A', type: 'text' }, { key: 'a', label: 'B', type: 'number' }] }), 400)).toBe('body/fields/1/key a is used by another field');
    expect(expectError(await post({ fields: [{ key: 's', label: 'S', type: 'select' }] }), 400)).toMatch(/fields\/0\/options/);
    expect(expectError(await post({ fields: [{ key: '1bad', label: 'S', type: 'text' }] }), 400)).toMatch(/key/);
    expect(expectError(await post({ fields: [{ key: 'x', label: 'S', type: 'money' }] }), 400)).toMatch(/type/);
    expect(expectError(await post({ frequency: 'Daily' }), 400)).toMatch(/frequency/);
    expect(expectError(await post({ name: '' }), 400)).toMatch(/name/);
    expect(expectError(await post({ groupCategoryId: 999999 }), 404)).toBe('Group category with id 999999 not found');
    expect(expectError(await admin.put(`/api/reports/templates/${tpl.id}`, { groupCategoryId: 999999 }), 404)).toMatch(/Group category/);
    expect(expectError(await admin.get('/api/reports/templates/abc'), 400)).toMatch(/id/);
    expect(expectError(await admin.get('/api/reports/templates/999999'), 404)).toBe('Report template with id 999999 not found');
  });

  it('submission values: required, types, unknown keys, select options, dates', async () => {
    const submit = (values: Record<string, unknown>, extra: Record<string, unknown> = {}) =>
      admin.post(`/api/reports/templates/${tpl.id}/submissions`, { groupId: tree.fellowshipA1.id, period: weeksAgo(5), values, ...extra });
    expect(expectError(await submit({ met: true }), 400)).toBe('body/values/attendance is required');
    expect(expectError(await submit({ attendance: '12', met: true }), 400)).toBe('body/values/attendance must be a number');
    expect(expectError(await submit({ attendance: 1, met: 'yes' }), 400)).toBe('body/values/met must be a boolean');
    expect(expectError(await submit({ attendance: 1, met: true, extra: 1 }), 400)).toBe('body/values/extra is not a field of this template');
    expect(expectError(await submit({ attendance: 1, met: true, venue: 'Park' }), 400)).toBe('body/values/venue must be one of Home, Church');
    expect(expectError(await submit({ attendance: 1, met: true, meetingDate: '2025-02-30' }), 400)).toBe('body/values/meetingDate must be a date YYYY-MM-DD');
    expect(expectError(await submit({ attendance: 1, met: true, notes: 5 }), 400)).toBe('body/values/notes must be a string');
    expect(expectError(await submit({ attendance: 1, met: true }, { period: '2025-13-01' }), 400)).toMatch(/period/);
    expect(expectError(await submit({ attendance: 1, met: true }, { period: addDays(thisWeek(), 7) }), 400)).toMatch(/has not started/);
    expect(expectError(await submit({ attendance: 1, met: true }, { groupId: tree.zoneA.id }), 400)).toMatch(/not of the template's category/);
    expect(expectError(await submit({ attendance: 1, met: true }, { groupId: 999999 }), 404)).toBe('Group with id 999999 not found');
    expect(expectError(await admin.post('/api/reports/templates/999999/submissions', { groupId: tree.fellowshipA1.id, values: {} }), 404)).toMatch(/Report template/);
    expect(await changesOf(ctx, t, 'report.submitted')).toEqual([]);
  });

  it('one submission per template, group and period: 409; inactive template 409', async () => {
    const body = { groupId: tree.fellowshipA1.id, period: weeksAgo(4), values: { attendance: 3, met: true } };
    const first = await admin.post(`/api/reports/templates/${tpl.id}/submissions`, body);
    expect(first.statusCode, first.body).toBe(201);
    const again = await admin.post(`/api/reports/templates/${tpl.id}/submissions`, { ...body, period: addDays(weeksAgo(4), 6) });
    expect(expectError(again, 409)).toMatch(new RegExp(`submission ${first.json().id}`));
    expect(await changesOf(ctx, t, 'report.submitted')).toHaveLength(1);
    const inactive = await newTemplate(ctx, t, { name: 'Off', isActive: false });
    expect(expectError(await admin.post(`/api/reports/templates/${inactive.id}/submissions`, body), 409)).toMatch(/inactive/);
  });

  it('delete with submissions is 409; category and frequency cannot change then', async () => {
    expect(expectError(await admin.delete(`/api/reports/templates/${tpl.id}`), 409)).toMatch(/deactivate/);
    expect(expectError(await admin.put(`/api/reports/templates/${tpl.id}`, { frequency: 'Monthly' }), 409)).toMatch(/frequency/);
    expect((await admin.put(`/api/reports/templates/${tpl.id}`, { isActive: false })).json().isActive).toBe(false);
  });

  it('monthly template: the period is the first day of the month', async () => {
    const m = await newTemplate(ctx, t, { name: 'Monthly', frequency: 'Monthly', fields: [{ key: 'n', label: 'N', type: 'number' }] });
    const res = await admin.post(`/api/reports/templates/${m.id}/submissions`, { groupId: tree.fellowshipA1.id, period: today(), values: { n: 2.5 } });
    expect(res.statusCode, res.body).toBe(201);
    expect(res.json().period).toBe(`${today().slice(0, 7)}-01`);
    const roll = (await admin.get(`/api/reports/templates/${m.id}/rollup`)).json();
    expect(roll.periods).toHaveLength(3);
    expect(roll.periods[2]).toMatchObject({ period: `${today().slice(0, 7)}-01`, submitted: 1, sums: { n: 2.5 } });
  });

  it('rollup and list windows: from after to, more than 5 years', async () => {
    expect(expectError(await admin.get(`/api/reports/templates/${tpl.id}/rollup?from=2025-02-01&to=2025-01-01`), 400)).toMatch(/from/);
    expect(expectError(await admin.get(`/api/reports/templates/${tpl.id}/rollup?from=2019-01-01&to=2024-01-02`), 400)).toMatch(/5 years/);
    expect((await admin.get(`/api/reports/templates/${tpl.id}/rollup?from=2019-01-01&to=2024-01-01`)).statusCode).toBe(200);
    expect(expectError(await admin.get(`/api/reports/templates/${tpl.id}/submissions?from=2025-02-01&to=2025-01-01`), 400)).toMatch(/from/);
    expect(expectError(await admin.get(`/api/reports/templates/${tpl.id}/rollup?groupId=999999`), 404)).toMatch(/Group/);
  });

  it('editing after 7 days is 403 for the submitter; admin still may', async () => {
    const { newLeaderOf } = await import('../helpers/groups.factories.js');
    const leader = await newLeaderOf(ctx, t, tree.fellowshipA2);
    const fresh = await newTemplate(ctx, t, { name: 'Fresh' });
    const res = await api(ctx.app, leader.token).post(`/api/reports/templates/${fresh.id}/submissions`, { groupId: tree.fellowshipA2.id, values: { attendance: 1, met: true } });
    expect(res.statusCode, res.body).toBe(201);
    const id = res.json().id;
    await tenantSql(ctx, t, sql`update report_submissions set submitted_at = now() - interval '8 days' where tenant_id = ${t.id} and id = ${id}`);
    expect(expectError(await api(ctx.app, leader.token).put(`/api/reports/submissions/${id}`, { values: { attendance: 2, met: true } }), 403)).toMatch(/7 days/);
    expect(expectError(await api(ctx.app, leader.token).delete(`/api/reports/submissions/${id}`), 403)).toMatch(/7 days/);
    expect(expectError(await admin.put(`/api/reports/submissions/${id}`, { values: { met: true } }), 400)).toBe('body/values/attendance is required');
    expect((await admin.put(`/api/reports/submissions/${id}`, { values: { attendance: 2, met: true } })).statusCode).toBe(200);
    expect((await admin.delete(`/api/reports/submissions/${id}`)).statusCode).toBe(204);
    expect(expectError(await admin.delete(`/api/reports/submissions/${id}`), 404)).toBe(`Submission with id ${id} not found`);
  });
});
