import { describe, expect, it } from 'vitest';
import { api, expectError, setupTestApp } from '../helpers/app.js';
import { newTenant } from '../helpers/factories.js';
import { newPerson } from '../helpers/contacts.factories.js';

const ctx = setupTestApp();

describe('relationships: errors', () => {
  it('validates the body, naming the field', async () => {
    const t = await newTenant(ctx);
    const a = api(ctx.app, t.admin.token);
    const x = await newPerson(ctx, t, 'X', 'X');
    const cases: [Record<string, unknown>, RegExp][] = [
      [{ relatedContactId: x.id, type: 'Friend' }, /body\/contactId is required/],
      [{ contactId: x.id, type: 'Friend' }, /body\/relatedContactId is required/],
      [{ contactId: x.id, relatedContactId: t.admin.contactId }, /body\/type is required/],
      [{ contactId: x.id, relatedContactId: t.admin.contactId, type: 'Nemesis' }, /body\/type must be one of/],
      [{ contactId: 'abc', relatedContactId: t.admin.contactId, type: 'Friend' }, /body\/contactId/],
      [{ contactId: -1, relatedContactId: t.admin.contactId, type: 'Friend' }, /body\/contactId/],
      [{ contactId: 1.5, relatedContactId: t.admin.contactId, type: 'Friend' }, /body\/contactId/],
      [{ contactId: x.id, relatedContactId: '99999999999999999999', type: 'Friend' }, /body\/relatedContactId/],
      [{ contactId: x.id, relatedContactId: x.id, type: 'Friend' }, /body\/relatedContactId must differ from body\/contactId/],
    ];
    for (const [body, message] of cases) expect(expectError(await a.post('/api/crm/relationships', body), 400)).toMatch(message);
  });

  it('404 naming missing contacts, 409 for duplicates (either direction)', async () => {
    const t = await newTenant(ctx);
    const a = api(ctx.app, t.admin.token);
    const x = await newPerson(ctx, t, 'X', 'X');
    const y = await newPerson(ctx, t, 'Y', 'Y');
    expect(expectError(await a.post('/api/crm/relationships', { contactId: x.id, relatedContactId: 777777, type: 'Friend' }), 404)).toBe('Contact with id 777777 not found');
    expect(expectError(await a.post('/api/crm/relationships', { contactId: 777776, relatedContactId: 777777, type: 'Friend' }), 404)).toBe('Contact with id 777776, 777777 not found');
    expect((await a.post('/api/crm/relationships', { contactId: x.id, relatedContactId: y.id, type: 'Parent' })).statusCode).toBe(201);
    expectError(await a.post('/api/crm/relationships', { contactId: x.id, relatedContactId: y.id, type: 'Parent' }), 409);
    expectError(await a.post('/api/crm/relationships', { contactId: y.id, relatedContactId: x.id, type: 'Child' }), 409);
    expect((await a.get('/api/crm/relationships')).json().total).toBe(2);
  });

  it('bad ids and filters are 400; a missing relationship is 404', async () => {
    const t = await newTenant(ctx);
    const a = api(ctx.app, t.admin.token);
    for (const id of ['abc', '1.5', '-1', '0', '99999999999999999999']) expect(expectError(await a.delete(`/api/crm/relationships/${id}`), 400)).toMatch(/params\/id/);
    expect(expectError(await a.delete('/api/crm/relationships/4242'), 404)).toBe('Relationship with id 4242 not found');
    expect(expectError(await a.get('/api/crm/relationships?contactId=abc'), 400)).toMatch(/querystring\/contactId/);
    expect(expectError(await a.get('/api/crm/relationships?type=Nemesis'), 400)).toMatch(/querystring\/type/);
    expect(expectError(await a.get('/api/crm/relationships?limit=0'), 400)).toMatch(/querystring\/limit/);
  });
});
