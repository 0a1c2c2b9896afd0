import { describe, expect, it } from 'vitest';
import { api, expectError, setupTestApp } from '../helpers/app.js';
import { newTenant } from '../helpers/factories.js';

const ctx = setupTestApp();

describe('Idempotency-Key: a stored response of a thing since deleted is withdrawn', () => {
  it('a deleted webhook: the replay of its create answers 410 without its id or secret, and makes no new webhook', async () => {
    const t = await newTenant(ctx);
    const admin = api(ctx.app, t.admin.token);
    const body = { url: 'http://127.0.0.1:9/hook', events: ['contact.created'] };
    const first = await admin.post('/api/notifications/webhooks', body, { 'idempotency-key': 'hook-gone' });
    expect(first.statusCode, first.body).toBe(201);
    const { id, secret } = first.json();
    // Before the delete, the replay is the first answer.
    expect((await admin.post('/api/notifications/webhooks', body, { 'idempotency-key': 'hook-gone' })).json()).toEqual(first.json());
    expect((await admin.delete(`/api/notifications/webhooks/${id}`)).statusCode).toBe(204);

    const replay = await admin.post('/api/notifications/webhooks', body, { 'idempotency-key': 'hook-gone' });
    expect(expectError(replay, 410)).toMatch(new RegExp(`withdrawn: /api/notifications/webhooks/${id} was deleted`));
    expect(replay.body).not.toContain(secret);
    expect((await admin.get('/api/notifications/webhooks')).json().total).toBe(0);
    // A new key creates a new one, as ever.
    const fresh = await admin.post('/api/notifications/webhooks', body, { 'idempotency-key': 'hook-new' });
    expect(fresh.statusCode).toBe(201);
    expect(fresh.json().id).not.toBe(id);
  });

  it('a rotated webhook secret: the replay of the create answers 410, never the secret that stopped signing', async () => {
    const t = await newTenant(ctx);
    const admin = api(ctx.app, t.admin.token);
    const body = { url: 'http://127.0.0.1:9/hook', events: ['contact.created'] };
    const created = await admin.post('/api/notifications/webhooks', body, { 'idempotency-key': 'hook-made' });
    expect(created.statusCode, created.body).toBe(201);
    const { id, secret } = created.json();
    expect((await admin.post('/api/notifications/webhooks', body, { 'idempotency-key': 'hook-made' })).json()).toEqual(created.json());
    expect((await admin.post(`/api/notifications/webhooks/${id}/rotate-secret`, {})).statusCode).toBe(200);
    const replayed = await admin.post('/api/notifications/webhooks', body, { 'idempotency-key': 'hook-made' });
    expect(expectError(replayed, 410)).toMatch(new RegExp(`the secret it held was rotated \\(webhook ${id}\\)`));
    expect(replayed.body).not.toContain(secret);
    expect((await admin.get('/api/notifications/webhooks')).json().total).toBe(1);
  });

  it('any deleted thing (a contact): its create is not replayed; other stored responses stay', async () => {
    const t = await newTenant(ctx);
    const admin = api(ctx.app, t.admin.token);
    const gone = { category: 'Person', person: { firstName: 'Gone', lastName: 'Soon' } };
    const kept = { category: 'Person', person: { firstName: 'Kept', lastName: 'Here' } };
    const a = await admin.post('/api/crm/contacts', gone, { 'idempotency-key': 'c-gone' });
    const b = await admin.post('/api/crm/contacts', kept, { 'idempotency-key': 'c-kept' });
    expect([a.statusCode, b.statusCode]).toEqual([201, 201]);
    expect((await admin.delete(`/api/crm/contacts/${a.json().id}`)).statusCode).toBe(204);
    expectError(await admin.post('/api/crm/contacts', gone, { 'idempotency-key': 'c-gone' }), 410);
    const replay = await admin.post('/api/crm/contacts', kept, { 'idempotency-key': 'c-kept' });
    expect(replay.statusCode).toBe(201);
    expect(replay.headers['idempotent-replayed']).toBe('true');
    expect(replay.json()).toEqual(b.json());
    // A failed delete (unknown id) withdraws nothing.
    expect((await admin.delete('/api/crm/contacts/999999')).statusCode).toBe(404);
    expect((await admin.post('/api/crm/contacts', kept, { 'idempotency-key': 'c-kept' })).statusCode).toBe(201);
  });
});
