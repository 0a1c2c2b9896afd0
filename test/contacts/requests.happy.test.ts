import { describe, expect, it } from 'vitest';
import { api, setupTestApp } from '../helpers/app.js';
import { newTenant } from '../helpers/factories.js';
import { newPerson } from '../helpers/contacts.factories.js';

const ctx = setupTestApp();

const TYPES = ['Prayer', 'Counseling', 'Visitation', 'Welfare', 'Thanksgiving', 'Other'];

describe('requests', () => {
  it('creates (Open by default), reads back in the list and in the contact, updates and deletes', async () => {
    const t = await newTenant(ctx);
    const a = api(ctx.app, t.admin.token);
    const c = await newPerson(ctx, t, 'Pray', 'Er');
    const res = await a.post('/api/crm/requests', { contactId: c.id, type: 'Prayer', description: 'For healing' });
    expect(res.statusCode).toBe(201);
    const req = res.json();
    expect(req).toEqual({
      id: expect.any(Number), contactId: c.id, type: 'Prayer', description: 'For healing', status: 'Open',
      createdAt: expect.any(String), updatedAt: expect.any(String),
    });
    expect(new Date(req.createdAt).toISOString()).toBe(req.createdAt);
    expect((await a.get('/api/crm/requests')).json()).toEqual({ data: [req], total: 1, page: 1, limit: 20 });
    expect((await a.get(`/api/crm/contacts/${c.id}`)).json().requests).toEqual([req]);

    const upd = await a.put(`/api/crm/requests/${req.id}`, { status: 'InProgress', description: 'For full healing' });
    expect(upd.statusCode).toBe(200);
    expect(upd.json()).toMatchObject({ id: req.id, type: 'Prayer', status: 'InProgress', description: 'For full healing', createdAt: req.createdAt });
    const other = await newPerson(ctx, t, 'Other', 'One');
    expect((await a.put(`/api/crm/requests/${req.id}`, { contactId: other.id, type: 'Welfare', status: 'Resolved' })).json()).toMatchObject({ contactId: other.id, type: 'Welfare', status: 'Resolved' });
    expect((await a.get(`/api/crm/contacts/${c.id}`)).json().requests).toEqual([]);

    const del = await a.delete(`/api/crm/requests/${req.id}`);
    expect(del.statusCode).toBe(204);
    expect((await a.get('/api/crm/requests')).json()).toMatchObject({ total: 0, data: [] });
  });

  it('accepts every type and status; filters by contactId, type and status; newest first', async () => {
    const t = await newTenant(ctx);
    const a = api(ctx.app, t.admin.token);
    const x = await newPerson(ctx, t, 'X', 'X');
    const y = await newPerson(ctx, t, 'Y', 'Y');
    const made = [];
    for (const type of TYPES) made.push((await a.post('/api/crm/requests', { contactId: x.id, type, description: type })).json());
    const resolved = (await a.post('/api/crm/requests', { contactId: y.id, type: 'Prayer', description: 'done', status: 'Resolved' })).json();
    expect(resolved.status).toBe('Resolved');
    const all = (await a.get('/api/crm/requests')).json();
    expect(all.total).toBe(7);
    expect(all.data.map((r: { id: number }) => r.id)).toEqual([resolved, ...made.reverse()].map((r) => r.id));
    expect((await a.get(`/api/crm/requests?contactId=${x.id}`)).json().total).toBe(6);
    expect((await a.get('/api/crm/requests?type=Prayer')).json().total).toBe(2);
    expect((await a.get(`/api/crm/requests?type=Prayer&contactId=${y.id}`)).json()).toMatchObject({ total: 1, data: [{ id: resolved.id }] });
    expect((await a.get('/api/crm/requests?status=Resolved')).json()).toMatchObject({ total: 1, data: [{ id: resolved.id }] });
    expect((await a.get('/api/crm/requests?status=InProgress')).json()).toMatchObject({ total: 0, data: [] });
    expect((await a.get('/api/crm/requests?contactId=99999')).json()).toMatchObject({ total: 0, data: [] });
    expect((await a.get('/api/crm/requests?limit=2&page=2')).json()).toMatchObject({ total: 7, page: 2, limit: 2, data: [{ type: 'Thanksgiving' }, { type: 'Welfare' }] });
  });
});
