import { describe, expect, it } from 'vitest';
import { api, expectError, setupTestApp } from '../helpers/app.js';
import { newTenant } from '../helpers/factories.js';

const ctx = setupTestApp();

describe('event categories errors', () => {
  it('name is required, at most 200 characters, unique per tenant regardless of case (409)', async () => {
    const t = await newTenant(ctx);
    const admin = api(ctx.app, t.admin.token);
    expect(expectError(await admin.post('/api/events/categories', {}), 400)).toMatch(/body\/name is required/);
    expect(expectError(await admin.post('/api/events/categories', { name: '  ' }), 400)).toMatch(/body\/name/);
    expect(expectError(await admin.post('/api/events/categories', { name: 'x'.repeat(201) }), 400)).toMatch(/body\/name/);
    expect(expectError(await admin.post('/api/events/categories', { name: 'Ok', description: 'x'.repeat(5001) }), 400)).toMatch(/body\/description/);
    expect(expectError(await admin.post('/api/events/categories', { name: 'sunday service' }), 409)).toBe("Event category 'sunday service' already exists");
    expect((await admin.post('/api/events/categories', { name: 'Camp' })).statusCode).toBe(201);
    expectError(await admin.post('/api/events/categories', { name: ' CAMP ' }), 409);
    expect((await admin.get('/api/events/categories')).json().total).toBe(7);
    expect(expectError(await admin.get('/api/events/categories?page=0'), 400)).toMatch(/querystring\/page/);
  });

  it('the same name is free in another tenant', async () => {
    const a = await newTenant(ctx);
    const b = await newTenant(ctx);
    expect((await api(ctx.app, a.admin.token).post('/api/events/categories', { name: 'Camp' })).statusCode).toBe(201);
    expect((await api(ctx.app, b.admin.token).post('/api/events/categories', { name: 'Camp' })).statusCode).toBe(201);
  });
});
