import { beforeAll, describe, expect, it } from 'vitest';
import { api, setupTestApp } from '../helpers/app.js';
import { newTenant, newUser, type TestTenant } from '../helpers/factories.js';
import { newBatch, newFund, newGift } from '../helpers/finance.factories.js';
import { categoryId, newContact, newGroup, type TestGroup } from '../helpers/groups.factories.js';
import { FIELDS, thisWeek } from '../reports/helpers.js';
import { recorded } from './helpers.js';

/**
 * modules-contract §7: the writes of attendance (services, sessions, headcounts, record removal),
 * finance (funds, batches, pledge update/delete), tenant settings, categories and report templates
 * and submissions record their changes in their own transaction, with actor, diff and data; a write
 * that fails records nothing; giving amounts reach /api/audit only with finance:read.
 */
describe('changes recorded by the attendance, finance, tenant, category and report writes', () => {
  const ctx = setupTestApp();
  let t: TestTenant;
  let fellowship: TestGroup;
  let other: TestGroup;
  beforeAll(async () => {
    t = await newTenant(ctx);
    fellowship = await newGroup(ctx, t, { name: 'Riverside Fellowship' });
    other = await newGroup(ctx, t, { name: 'Hilltop Fellowship' });
  });
  const admin = () => api(ctx.app, t.admin.token);

  it('services: created, updated with from/to (nothing when nothing differs), deleted; a 409 delete records nothing', async () => {
    const created = await recorded(ctx, t.id, () =>
      admin().post('/api/attendance/services', { name: 'Sunday Service', groupId: fellowship.id, dayOfWeek: 0, startTime: '09:30', headcountTypes: ['Adults'] }));
    expect(created.result.statusCode, created.result.body).toBe(201);
    const id = created.result.json().id;
    expect(created.changes).toMatchObject([{
      type: 'service.created', entityType: 'service', entityId: id, actorUserId: t.admin.id, changes: null,
      data: { serviceId: id, serviceName: 'Sunday Service', groupId: fellowship.id, groupName: 'Riverside Fellowship', isActive: true, dayOfWeek: 0, startTime: '09:30' },
    }]);

    const updated = await recorded(ctx, t.id, () =>
      admin().put(`/api/attendance/services/${id}`, { name: 'Morning Service', groupId: other.id, startTime: '09:30', headcountTypes: ['Adults', 'Children'] }));
    expect(updated.result.statusCode, updated.result.body).toBe(200);
    expect(updated.changes).toHaveLength(1);
    expect(updated.changes[0]).toMatchObject({ type: 'service.updated', entityId: id, actorUserId: t.admin.id, data: { serviceId: id, serviceName: 'Morning Service', groupId: other.id, groupName: 'Hilltop Fellowship' } });
    // Only what differs: startTime was sent unchanged.
    expect(updated.changes[0].changes).toEqual({
      name: { from: 'Sunday Service', to: 'Morning Service' },
      groupId: { from: fellowship.id, to: other.id },
      headcountTypes: { from: ['Adults'], to: ['Adults', 'Children'] },
    });
    const same = await recorded(ctx, t.id, () => admin().put(`/api/attendance/services/${id}`, { name: 'Morning Service' }));
    expect(same.result.statusCode).toBe(200);
    expect(same.changes).toEqual([]);

    // A service with sessions cannot be deleted (409): nothing recorded.
    const session = (await admin().post('/api/attendance/sessions', { serviceId: id, date: '2026-03-01' })).json();
    const refused = await recorded(ctx, t.id, () => admin().delete(`/api/attendance/services/${id}`));
    expect(refused.result.statusCode).toBe(409);
    expect(refused.changes).toEqual([]);
    expect((await admin().delete(`/api/attendance/sessions/${session.id}`)).statusCode).toBe(204);

    const deleted = await recorded(ctx, t.id, () => admin().delete(`/api/attendance/services/${id}`));
    expect(deleted.result.statusCode).toBe(204);
    expect(deleted.changes).toMatchObject([{ type: 'service.deleted', entityId: id, actorUserId: t.admin.id, data: { serviceId: id, serviceName: 'Morning Service', groupId: other.id } }]);

    const missing = await recorded(ctx, t.id, () => admin().put('/api/attendance/services/999999', { name: 'Nowhere' }));
    expect(missing.result.statusCode).toBe(404);
    expect(missing.changes).toEqual([]);
  });

  it('sessions: created, updated with from/to, headcounts replaced (counts in data), a record removed, deleted with its counts', async () => {
    const service = (await admin().post('/api/attendance/services', { name: 'Evening Service', groupId: fellowship.id, dayOfWeek: 0, startTime: '18:00' })).json();
    const created = await recorded(ctx, t.id, () => admin().post('/api/attendance/sessions', { serviceId: service.id, date: '2026-03-08' }));
    expect(created.result.statusCode, created.result.body).toBe(201);
    const id = created.result.json().id;
    expect(created.changes).toMatchObject([{
      type: 'session.created', entityType: 'session', entityId: id, actorUserId: t.admin.id, changes: null,
      data: { sessionId: id, source: 'Service', date: '2026-03-08', serviceId: service.id, serviceName: 'Evening Service', groupId: fellowship.id, groupName: 'Riverside Fellowship', eventId: null, didNotMeet: false },
    }]);
    const dup = await recorded(ctx, t.id, () => admin().post('/api/attendance/sessions', { serviceId: service.id, date: '2026-03-08' }));
    expect(dup.result.statusCode).toBe(409);
    expect(dup.changes).toEqual([]);

    const updated = await recorded(ctx, t.id, () => admin().put(`/api/attendance/sessions/${id}`, { notes: 'Rainy evening', didNotMeet: false }));
    expect(updated.result.statusCode, updated.result.body).toBe(200);
    expect(updated.changes).toMatchObject([{ type: 'session.updated', entityId: id, actorUserId: t.admin.id, data: { sessionId: id, serviceId: service.id, groupId: fellowship.id } }]);
    expect(updated.changes[0].changes).toEqual({ notes: { from: null, to: 'Rainy evening' } });

    const counts = await recorded(ctx, t.id, () => admin().put(`/api/attendance/sessions/${id}/headcounts`, { counts: [{ type: 'Adults', count: 40 }, { type: 'Children', count: 12 }] }));
    expect(counts.result.statusCode, counts.result.body).toBe(200);
    expect(counts.changes).toMatchObject([{
      type: 'session.headcounts_updated', entityId: id, actorUserId: t.admin.id,
      changes: { counts: { from: [], to: [{ type: 'Adults', count: 40 }, { type: 'Children', count: 12 }] } },
      data: { sessionId: id, groupId: fellowship.id, serviceId: service.id, counts: [{ type: 'Adults', count: 40 }, { type: 'Children', count: 12 }], headcountTotal: 52 },
    }]);
    const sameCounts = await recorded(ctx, t.id, () => admin().put(`/api/attendance/sessions/${id}/headcounts`, { counts: [{ type: 'Children', count: 12 }, { type: 'Adults', count: 40 }] }));
    expect(sameCounts.result.statusCode).toBe(200);
    expect(sameCounts.changes).toEqual([]);
    const badCounts = await recorded(ctx, t.id, () => admin().put(`/api/attendance/sessions/${id}/headcounts`, { counts: [{ type: 'Adults', count: 1 }, { type: 'adults', count: 2 }] }));
    expect(badCounts.result.statusCode).toBe(400);
    expect(badCounts.changes).toEqual([]);

    const a = await newContact(ctx, t, 'Ann', 'Attender');
    const b = await newContact(ctx, t, 'Bob', 'Attender');
    const added = (await admin().post(`/api/attendance/sessions/${id}/records`, { contactIds: [a, b] })).json();
    const recordId = added.created.find((r: { contact: { id: number } }) => r.contact.id === a).id;
    const removed = await recorded(ctx, t.id, () => admin().delete(`/api/attendance/sessions/${id}/records/${a}`));
    expect(removed.result.statusCode).toBe(204);
    expect(removed.changes).toMatchObject([{
      type: 'attendance.deleted', entityType: 'attendance', entityId: recordId, actorUserId: t.admin.id, changes: null,
      data: { contactId: a, sessionId: id, groupId: fellowship.id, serviceId: service.id, serviceName: 'Evening Service', eventId: null, kind: 'Regular', date: '2026-03-08' },
    }]);
    const again = await recorded(ctx, t.id, () => admin().delete(`/api/attendance/sessions/${id}/records/${a}`));
    expect(again.result.statusCode).toBe(404);
    expect(again.changes).toEqual([]);
    // The timeline of the contact shows the removal.
    const timeline = (await admin().get(`/api/crm/contacts/${a}/timeline`)).json();
    expect(timeline.data[0]).toMatchObject({ type: 'attendance.deleted', entity: { type: 'attendance', id: recordId } });

    const deleted = await recorded(ctx, t.id, () => admin().delete(`/api/attendance/sessions/${id}`));
    expect(deleted.result.statusCode).toBe(204);
    expect(deleted.changes).toMatchObject([{
      type: 'session.deleted', entityId: id, actorUserId: t.admin.id,
      data: { sessionId: id, serviceId: service.id, groupId: fellowship.id, date: '2026-03-08', presentCount: 1, headcountTotal: 52 },
    }]);
  });

  it('event attendance: the implicit session records session.created once; DELETE /api/events/:id/attendance/:id records attendance.deleted', async () => {
    const event = (await admin().post('/api/events', { name: 'Harvest Festival', startDate: '2026-09-20', groupId: fellowship.id })).json();
    const a = await newContact(ctx, t, 'Eve', 'Goer');
    const b = await newContact(ctx, t, 'Fay', 'Goer');
    const first = await recorded(ctx, t.id, () => admin().post(`/api/events/${event.id}/attendance`, { contactIds: [a] }));
    expect(first.result.statusCode, first.result.body).toBe(201);
    const types = first.changes.map((c) => c.type);
    expect(types[0]).toBe('session.created');
    expect(types.filter((x) => x === 'attendance.recorded')).toHaveLength(1);
    const sessionId = first.changes[0].entityId;
    expect(first.changes[0]).toMatchObject({
      entityType: 'session', actorUserId: t.admin.id,
      data: { sessionId, source: 'Event', date: '2026-09-20', eventId: event.id, eventName: 'Harvest Festival', groupId: fellowship.id, groupName: 'Riverside Fellowship', serviceId: null },
    });
    const second = await recorded(ctx, t.id, () => admin().post(`/api/events/${event.id}/attendance`, { contactIds: [b] }));
    expect(second.changes.map((c) => c.type)).not.toContain('session.created');

    const recordId = first.result.json().created[0].id;
    const removed = await recorded(ctx, t.id, () => admin().delete(`/api/events/${event.id}/attendance/${recordId}`));
    expect(removed.result.statusCode).toBe(204);
    expect(removed.changes).toMatchObject([{
      type: 'attendance.deleted', entityId: recordId, actorUserId: t.admin.id,
      data: { contactId: a, sessionId, groupId: fellowship.id, eventId: event.id, eventName: 'Harvest Festival' },
    }]);
    const gone = await recorded(ctx, t.id, () => admin().delete(`/api/events/${event.id}/attendance/${recordId}`));
    expect(gone.result.statusCode).toBe(404);
    expect(gone.changes).toEqual([]);
    // A record of another event is 404 through this event, and stays.
    const otherEvent = (await admin().post('/api/events', { name: 'Other', startDate: '2026-09-21', groupId: fellowship.id })).json();
    const otherRecord = (await admin().post(`/api/events/${otherEvent.id}/attendance`, { contactIds: [a] })).json().created[0].id;
    const wrong = await recorded(ctx, t.id, () => admin().delete(`/api/events/${event.id}/attendance/${otherRecord}`));
    expect(wrong.result.statusCode).toBe(404);
    expect(wrong.changes).toEqual([]);
    expect((await admin().get(`/api/events/${otherEvent.id}/attendance`)).json().total).toBe(1);

    // Registrations still record their removal.
    const reg = (await admin().post(`/api/events/${event.id}/registration`, { contactIds: [b] })).json().created[0].id;
    const unreg = await recorded(ctx, t.id, () => admin().delete(`/api/events/${event.id}/registration/${reg}`));
    expect(unreg.changes).toMatchObject([{ type: 'registration.deleted', entityId: reg, data: { contactId: b, eventId: event.id } }]);
  });

  it('funds: created, updated with from/to, deleted; a fund in use is 409 and records nothing', async () => {
    const created = await recorded(ctx, t.id, () => admin().post('/api/finance/funds', { name: 'Building', code: 'BLD' }));
    expect(created.result.statusCode, created.result.body).toBe(201);
    const id = created.result.json().id;
    expect(created.changes).toMatchObject([{ type: 'fund.created', entityType: 'fund', entityId: id, actorUserId: t.admin.id, changes: null, data: { fundId: id, fundName: 'Building', code: 'BLD', isActive: true } }]);
    const updated = await recorded(ctx, t.id, () => admin().put(`/api/finance/funds/${id}`, { name: 'Building Fund', code: 'BLD', isTaxDeductible: false }));
    expect(updated.changes).toMatchObject([{ type: 'fund.updated', entityId: id, data: { fundId: id, fundName: 'Building Fund' } }]);
    expect(updated.changes[0].changes).toEqual({ name: { from: 'Building', to: 'Building Fund' }, isTaxDeductible: { from: true, to: false } });
    const conflict = await recorded(ctx, t.id, () => admin().post('/api/finance/funds', { name: 'building fund' }));
    expect(conflict.result.statusCode).toBe(409);
    expect(conflict.changes).toEqual([]);

    const used = await newFund(ctx, t.admin.token, { name: 'General' });
    await newGift(ctx, t.admin.token, { fundId: used.id, amount: 500 });
    const refused = await recorded(ctx, t.id, () => admin().delete(`/api/finance/funds/${used.id}`));
    expect(refused.result.statusCode).toBe(409);
    expect(refused.changes).toEqual([]);

    const deleted = await recorded(ctx, t.id, () => admin().delete(`/api/finance/funds/${id}`));
    expect(deleted.result.statusCode).toBe(204);
    expect(deleted.changes).toMatchObject([{ type: 'fund.deleted', entityId: id, actorUserId: t.admin.id, data: { fundId: id, fundName: 'Building Fund' } }]);
  });

  it('batches: created with its control totals, updated with from/to, deleted; a closed batch refuses changes and records nothing', async () => {
    const created = await recorded(ctx, t.id, () => admin().post('/api/finance/batches', { name: 'Sunday 1 March', date: '2026-03-01', controlAmount: 150000, controlCount: 12 }));
    expect(created.result.statusCode, created.result.body).toBe(201);
    const id = created.result.json().id;
    expect(created.changes).toMatchObject([{
      type: 'batch.created', entityType: 'batch', entityId: id, actorUserId: t.admin.id, changes: null,
      data: { batchId: id, name: 'Sunday 1 March', date: '2026-03-01', status: 'Open', controlAmount: 150000, controlCount: 12, currency: 'USD' },
    }]);
    const updated = await recorded(ctx, t.id, () => admin().put(`/api/finance/batches/${id}`, { controlAmount: 155000, name: 'Sunday 1 March' }));
    expect(updated.result.statusCode, updated.result.body).toBe(200);
    expect(updated.changes).toMatchObject([{ type: 'batch.updated', entityId: id, data: { batchId: id, controlAmount: 155000 } }]);
    expect(updated.changes[0].changes).toEqual({ controlAmount: { from: 150000, to: 155000 } });

    const closed = await newBatch(ctx, t.admin.token, { name: 'Closed one' });
    expect((await admin().put(`/api/finance/batches/${closed.id}/close`, { force: true })).statusCode).toBe(200);
    for (const write of [() => admin().put(`/api/finance/batches/${closed.id}`, { name: 'Renamed' }), () => admin().delete(`/api/finance/batches/${closed.id}`)]) {
      const refused = await recorded(ctx, t.id, write);
      expect(refused.result.statusCode).toBe(409);
      expect(refused.changes).toEqual([]);
    }

    const deleted = await recorded(ctx, t.id, () => admin().delete(`/api/finance/batches/${id}`));
    expect(deleted.result.statusCode).toBe(204);
    expect(deleted.changes).toMatchObject([{ type: 'batch.deleted', entityId: id, actorUserId: t.admin.id, data: { batchId: id, name: 'Sunday 1 March', controlAmount: 155000 } }]);
  });

  it('pledges: updated with from/to, deleted, with contactId, fundId and amounts in data; a bad update records nothing', async () => {
    const donor = await newContact(ctx, t, 'Dora', 'Donor');
    const fund = await newFund(ctx, t.admin.token, { name: 'Missions' });
    const fund2 = await newFund(ctx, t.admin.token, { name: 'Youth' });
    const pledge = (await admin().post('/api/finance/pledges', { contactId: donor, fundId: fund.id, amount: 10000, frequency: 'Monthly', startDate: '2026-01-01', endDate: '2026-12-31' })).json();
    const updated = await recorded(ctx, t.id, () => admin().put(`/api/finance/pledges/${pledge.id}`, { amount: 12000, fundId: fund2.id, frequency: 'Monthly' }));
    expect(updated.result.statusCode, updated.result.body).toBe(200);
    expect(updated.changes).toMatchObject([{
      type: 'pledge.updated', entityType: 'pledge', entityId: pledge.id, actorUserId: t.admin.id,
      data: { contactId: donor, fundId: fund2.id, fundName: 'Youth', fundIds: [fund2.id], amount: 12000, currency: 'USD', frequency: 'Monthly', totalPledgedAmount: 144000 },
    }]);
    expect(updated.changes[0].changes).toEqual({ fundId: { from: fund.id, to: fund2.id }, amount: { from: 10000, to: 12000 } });
    const bad = await recorded(ctx, t.id, () => admin().put(`/api/finance/pledges/${pledge.id}`, { endDate: '2025-01-01' }));
    expect(bad.result.statusCode).toBe(400);
    expect(bad.changes).toEqual([]);

    const deleted = await recorded(ctx, t.id, () => admin().delete(`/api/finance/pledges/${pledge.id}`));
    expect(deleted.result.statusCode).toBe(204);
    expect(deleted.changes).toMatchObject([{ type: 'pledge.deleted', entityId: pledge.id, actorUserId: t.admin.id, data: { contactId: donor, fundId: fund2.id, amount: 12000 } }]);
    const missing = await recorded(ctx, t.id, () => admin().delete(`/api/finance/pledges/${pledge.id}`));
    expect(missing.result.statusCode).toBe(404);
    expect(missing.changes).toEqual([]);
  });

  it('/api/audit shows batch and pledge changes, with their amounts, only to callers holding finance:read', async () => {
    const donor = await newContact(ctx, t, 'Abe', 'Audited');
    const fund = await newFund(ctx, t.admin.token, { name: 'Audit fund' });
    const batch = (await admin().post('/api/finance/batches', { name: 'Audited batch', date: '2026-04-05', controlAmount: 70000, controlCount: 3 })).json();
    await admin().put(`/api/finance/batches/${batch.id}`, { controlAmount: 80000 });
    await admin().delete(`/api/finance/batches/${batch.id}`);
    const pledge = (await admin().post('/api/finance/pledges', { contactId: donor, fundId: fund.id, amount: 5000, frequency: 'OneTime', startDate: '2026-04-01' })).json();
    await admin().put(`/api/finance/pledges/${pledge.id}`, { amount: 6000 });
    await admin().delete(`/api/finance/pledges/${pledge.id}`);

    const auditor = await newUser(ctx, t, ['audit:read']);
    const treasurer = await newUser(ctx, t, ['audit:read', 'finance:read']);
    const audit = async (token: string, entityType: string, entityId: number) => {
      const res = await api(ctx.app, token).get(`/api/audit?entityType=${entityType}&entityId=${entityId}`);
      expect(res.statusCode, res.body).toBe(200);
      return res.json().data as { type: string; changes: Record<string, unknown> | null; data: Record<string, unknown> }[];
    };

    const full = await audit(treasurer.token, 'batch', batch.id);
    expect(full.map((c) => c.type)).toEqual(['batch.deleted', 'batch.updated', 'batch.created']);
    expect(full[1].changes).toEqual({ controlAmount: { from: 70000, to: 80000 } });
    expect(full[2].data).toMatchObject({ controlAmount: 70000, controlCount: 3 });
    // Giving is read with finance:read (src/changes/readable.ts): without it, none of its changes.
    expect(await audit(auditor.token, 'batch', batch.id)).toEqual([]);

    const pledgeFull = await audit(treasurer.token, 'pledge', pledge.id);
    expect(pledgeFull.map((c) => c.type)).toEqual(['pledge.deleted', 'pledge.updated', 'pledge.created']);
    expect(pledgeFull[1].changes).toEqual({ amount: { from: 5000, to: 6000 } });
    expect(pledgeFull[0].data).toMatchObject({ amount: 6000, totalPledgedAmount: 6000 });
    expect(await audit(auditor.token, 'pledge', pledge.id)).toEqual([]);
  });

  it('tenant settings: tenant.updated with from/to, entity the tenant; nothing for an unchanged or invalid PUT', async () => {
    const updated = await recorded(ctx, t.id, () => admin().put('/api/tenants/current', { name: 'Riverside Church', timeZone: 'Europe/London', currency: 'usd' }));
    expect(updated.result.statusCode, updated.result.body).toBe(200);
    expect(updated.changes).toHaveLength(1);
    expect(updated.changes[0]).toMatchObject({ type: 'tenant.updated', entityType: 'tenant', entityId: t.id, actorUserId: t.admin.id, data: { tenantId: t.id, name: 'Riverside Church' } });
    // currency was sent as it is (USD once upper-cased): not a change.
    expect(updated.changes[0].changes).toEqual({ name: { from: expect.any(String), to: 'Riverside Church' }, timeZone: { from: 'UTC', to: 'Europe/London' } });
    const same = await recorded(ctx, t.id, () => admin().put('/api/tenants/current', { timeZone: 'Europe/London' }));
    expect(same.result.statusCode).toBe(200);
    expect(same.changes).toEqual([]);
    const bad = await recorded(ctx, t.id, () => admin().put('/api/tenants/current', { timeZone: 'Mars/Olympus' }));
    expect(bad.result.statusCode).toBe(400);
    expect(bad.changes).toEqual([]);
    await admin().put('/api/tenants/current', { timeZone: 'UTC' });
  });

  it('categories: group_category.created and event_category.created; a duplicate name records nothing', async () => {
    const group = await recorded(ctx, t.id, () => admin().post('/api/groups/categories', { name: 'Choir', purpose: 'Serving' }));
    expect(group.result.statusCode, group.result.body).toBe(201);
    const gid = group.result.json().id;
    expect(group.changes).toMatchObject([{ type: 'group_category.created', entityType: 'group_category', entityId: gid, actorUserId: t.admin.id, data: { categoryId: gid, name: 'Choir', purpose: 'Serving' } }]);
    const dupGroup = await recorded(ctx, t.id, () => admin().post('/api/groups/categories', { name: 'Choir' }));
    expect(dupGroup.result.statusCode).toBe(409);
    expect(dupGroup.changes).toEqual([]);

    const event = await recorded(ctx, t.id, () => admin().post('/api/events/categories', { name: 'Baptism Service', description: 'Baptisms' }));
    expect(event.result.statusCode, event.result.body).toBe(201);
    const eid = event.result.json().id;
    expect(event.changes).toMatchObject([{ type: 'event_category.created', entityType: 'event_category', entityId: eid, actorUserId: t.admin.id, data: { categoryId: eid, name: 'Baptism Service' } }]);
    const dupEvent = await recorded(ctx, t.id, () => admin().post('/api/events/categories', { name: 'Baptism Service' }));
    expect(dupEvent.result.statusCode).toBe(409);
    expect(dupEvent.changes).toEqual([]);
  });

  it('report templates (created, updated, deleted) and submissions (report.updated and report.deleted on the submission, as report.submitted)', async () => {
    const catId = await categoryId(ctx, t, 'Fellowship');
    const created = await recorded(ctx, t.id, () => admin().post('/api/reports/templates', { name: 'Weekly report', groupCategoryId: catId, fields: FIELDS }));
    expect(created.result.statusCode, created.result.body).toBe(201);
    const id = created.result.json().id;
    expect(created.changes).toMatchObject([{
      type: 'report_template.created', entityType: 'report_template', entityId: id, actorUserId: t.admin.id, changes: null,
      data: { templateId: id, templateName: 'Weekly report', groupCategoryId: catId, frequency: 'Weekly', isActive: true },
    }]);
    const updated = await recorded(ctx, t.id, () => admin().put(`/api/reports/templates/${id}`, { name: 'Weekly fellowship report', frequency: 'Weekly' }));
    expect(updated.result.statusCode, updated.result.body).toBe(200);
    expect(updated.changes).toMatchObject([{ type: 'report_template.updated', entityId: id, data: { templateId: id, templateName: 'Weekly fellowship report' } }]);
    expect(updated.changes[0].changes).toEqual({ name: { from: 'Weekly report', to: 'Weekly fellowship report' } });

    const submitted = await recorded(ctx, t.id, () =>
      admin().post(`/api/reports/templates/${id}/submissions`, { groupId: fellowship.id, period: thisWeek(), values: { attendance: 8, met: true } }));
    expect(submitted.result.statusCode, submitted.result.body).toBe(201);
    const sid = submitted.result.json().id;
    expect(submitted.changes).toMatchObject([{ type: 'report.submitted', entityType: 'report', entityId: sid }]);

    // A template with submissions is 409 to delete: nothing recorded.
    const refused = await recorded(ctx, t.id, () => admin().delete(`/api/reports/templates/${id}`));
    expect(refused.result.statusCode).toBe(409);
    expect(refused.changes).toEqual([]);

    const edited = await recorded(ctx, t.id, () => admin().put(`/api/reports/submissions/${sid}`, { values: { attendance: 9, met: true } }));
    expect(edited.result.statusCode, edited.result.body).toBe(200);
    expect(edited.changes).toMatchObject([{
      type: 'report.updated', entityType: 'report', entityId: sid, actorUserId: t.admin.id,
      changes: { values: { from: { attendance: 8, met: true }, to: { attendance: 9, met: true } } },
      data: { submissionId: sid, templateId: id, templateName: 'Weekly fellowship report', groupId: fellowship.id, groupName: 'Riverside Fellowship', period: thisWeek() },
    }]);
    const badEdit = await recorded(ctx, t.id, () => admin().put(`/api/reports/submissions/${sid}`, { values: { attendance: 'nine', met: true } }));
    expect(badEdit.result.statusCode).toBe(400);
    expect(badEdit.changes).toEqual([]);

    const removed = await recorded(ctx, t.id, () => admin().delete(`/api/reports/submissions/${sid}`));
    expect(removed.result.statusCode).toBe(204);
    expect(removed.changes).toMatchObject([{ type: 'report.deleted', entityType: 'report', entityId: sid, actorUserId: t.admin.id, data: { submissionId: sid, templateId: id, groupId: fellowship.id } }]);

    const deleted = await recorded(ctx, t.id, () => admin().delete(`/api/reports/templates/${id}`));
    expect(deleted.result.statusCode).toBe(204);
    expect(deleted.changes).toMatchObject([{ type: 'report_template.deleted', entityId: id, actorUserId: t.admin.id, data: { templateId: id, templateName: 'Weekly fellowship report' } }]);
  });
});
