import { describe, expect, it } from 'vitest';
import { api, expectError, setupTestApp } from '../helpers/app.js';
import { newTenant } from '../helpers/factories.js';
import { newPerson } from '../helpers/contacts.factories.js';

const ctx = setupTestApp();

describe('requests: errors', () => {
  it('validates bodies, naming the field', async () => {
    const t = await newTenant(ctx);
    const a = api(ctx.app, t.admin.token);
    const c = await newPerson(ctx, t, 'X', 'X');
    const ok = { contactId: c.id, type: 'Prayer', description: 'x' };
    const cases: [Record<string, unknown>, RegExp][] = [
      [{ type: 'Prayer', description: 'x' }, /body\/contactId is required/],
      [{ contactId: c.id, description: 'x' }, /body\/type is required/],
      [{ contactId: c.id, type: 'Prayer' }, /body\/description is required/],
      [{ ...ok, type: 'Gossip' }, /body\/type must be one of/],
      [{ ...ok, status: 'Closed' }, /body\/status must be one of/],
      [{ ...ok, description: '   ' }, /body\/description/],
      [{ ...ok, description: 'x'.repeat(5001) }, /body\/description/],
      [{ ...ok, contactId: 'abc' }, /body\/contactId/],
      [{ ...ok, contactId: 0 }, /body\/contactId/],
      [{ ...ok, contactId: 1.5 }, /body\/contactId/],
    ];
    for (const [body, message] of cases) expect(expectError(await a.post('/api/crm/requests', body), 400)).toMatch(message);
    const req = (await a.post('/api/crm/requests', ok)).json();
    expect(expectError(await a.put(`/api/crm/requests/${req.id}`, { status: 'Closed' }), 400)).toMatch(/body\/status/);
    expect(expectError(await a.put(`/api/crm/requests/${req.id}`, { type: 'Gossip' }), 400)).toMatch(/body\/type/);
    expect(expectError(await a.put(`/api/crm/requests/${req.id}`, { description: '' }), 400)).toMatch(/body\/description/);
    expect((await a.get('/api/crm/requests')).json().data).toEqual([req]);
  });

  it('404 for missing contacts and requests; 400 for bad ids and filters', async () => {
    const t = await newTenant(ctx);
    const a = api(ctx.app, t.admin.token);
    const c = await newPerson(ctx, t, 'X', 'X');
    expect(expectError(await a.post('/api/crm/requests', { contactId: 5555, type: 'Prayer', description: 'x' }), 404)).toBe('Contact with id 5555 not found');
    const req = (await a.post('/api/crm/requests', { contactId: c.id, type: 'Prayer', description: 'x' })).json();
    expect(expectError(await a.put(`/api/crm/requests/${req.id}`, { contactId: 5555 }), 404)).toBe('Contact with id 5555 not found');
    expect(expectError(await a.put('/api/crm/requests/5555', { status: 'Open' }), 404)).toBe('Request with id 5555 not found');
    expect(expectError(await a.delete('/api/crm/requests/5555'), 404)).toBe('Request with id 5555 not found');
    for (const id of ['abc', '1.5', '-1', '0', '99999999999999999999']) {
      expect(expectError(await a.put(`/api/crm/requests/${id}`, { status: 'Open' }), 400)).toMatch(/params\/id/);
      expect(expectError(await a.delete(`/api/crm/requests/${id}`), 400)).toMatch(/params\/id/);
    }
    for (const [query, field] of [['contactId=abc', 'contactId'], ['type=Gossip', 'type'], ['status=Closed', 'status'], ['page=0', 'page']]) {
      expect(expectError(await a.get(`/api/crm/requests?${query}`), 400)).toMatch(new RegExp(`querystring/${field}`));
    }
    expect((await a.get('/api/crm/requests')).json().data).toEqual([req]);
  });
});
