import type { AddressInfo } from 'node:net';
import { beforeAll, describe, expect, it } from 'vitest';
import { createParishClient } from '../../client/index.js';
import { expectError, setupTestApp } from '../helpers/app.js';
import { newTenant, PASSWORD, type TestTenant } from '../helpers/factories.js';

/** Issue 18: the typed client against a running app, and 415 for bodies in a content type the route does not take. */
const ctx = setupTestApp();
let t: TestTenant;
beforeAll(async () => {
  t = await newTenant(ctx);
});

describe('typed client (client/) against a listening app', () => {
  it('logs in, lists contacts, creates one and reads typed errors', async () => {
    await ctx.app.listen({ port: 0, host: '127.0.0.1' });
    const { port } = ctx.app.server.address() as AddressInfo;
    const parish = createParishClient({ baseUrl: `http://127.0.0.1:${port}` });

    const login = await parish.POST('/api/auth/login', { body: { churchName: t.slug, username: 'admin', password: PASSWORD } });
    expect(login.response.status).toBe(200);
    parish.setToken(login.data!.accessToken);
    expect(login.data!.user.permissions).toContain('contacts:write');

    const before = await parish.GET('/api/crm/contacts', { params: { query: { limit: 100 } } });
    expect(before.response.status).toBe(200);
    const created = await parish.POST('/api/crm/contacts', {
      body: { category: 'Person', person: { firstName: 'Typed', lastName: 'Client' }, emails: [{ value: 'typed@example.org' }] },
    });
    expect(created.response.status).toBe(201);
    expect(created.data!.person?.lastName).toBe('Client');
    const after = await parish.GET('/api/crm/contacts', { params: { query: { q: 'Client' } } });
    expect(after.data!.total).toBe(1);
    expect(after.data!.data[0].id).toBe(created.data!.id);
    expect(after.data!.total).toBeLessThanOrEqual(before.data!.total + 1);

    const missing = await parish.GET('/api/crm/contacts/{id}', { params: { path: { id: 999_999_999 } } });
    expect(missing.response.status).toBe(404);
    expect(missing.error).toEqual({ statusCode: 404, message: expect.stringContaining('999999999'), error: 'Not Found' });
  });
});

describe('415: a body in a content type the route does not take', () => {
  const send = (url: string, contentType: string, payload: string, token?: string) =>
    ctx.app.inject({ method: 'POST', url, payload, headers: { 'content-type': contentType, ...(token ? { authorization: `Bearer ${token}` } : {}) } });

  it('text/plain, text/csv and forms to a JSON route are 415 in the error shape; authentication still comes first', async () => {
    const body = JSON.stringify({ category: 'Person', person: { firstName: 'A', lastName: 'B' } });
    expect(expectError(await send('/api/crm/contacts', 'text/plain', body, t.admin.token), 415)).toMatch(/content type/i);
    expect(expectError(await send('/api/crm/contacts', 'text/csv', 'firstName,lastName\nA,B\n', t.admin.token), 415)).toMatch(/application\/json/);
    expectError(await send('/api/crm/contacts', 'application/x-www-form-urlencoded', 'a=b', t.admin.token), 415);
    expectError(await send('/api/auth/login', 'text/plain', 'admin'), 415);
    expectError(await send('/api/crm/contacts', 'text/plain', body), 401);
    expectError(await send('/api/crm/contacts', 'application/json', '{"category":', t.admin.token), 400);
  });

  it('the CSV imports still take text/csv, and refuse text/plain', async () => {
    const res = await send('/api/crm/contacts/import', 'text/csv', 'firstName,lastName,email\nCsv,Person,csv@example.org\n', t.admin.token);
    expect(res.statusCode).toBe(200);
    expect(res.json()).toMatchObject({ total: 1, created: 1, failed: 0 });
    expect((await send('/api/groups/import', 'text/csv', 'name,category,parentName\n', t.admin.token)).statusCode).not.toBe(415);
    expectError(await send('/api/crm/contacts/import', 'text/plain', 'firstName,lastName\nA,B\n', t.admin.token), 415);
    expectError(await send('/api/finance/contributions/import', 'text/plain', 'date,amount,fund\n', t.admin.token), 415);
  });
});
