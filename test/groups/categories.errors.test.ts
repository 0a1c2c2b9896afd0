import { describe, expect, it } from 'vitest';
import { api, expectError, setupTestApp } from '../helpers/app.js';
import { newTenant } from '../helpers/factories.js';

const ctx = setupTestApp();

describe('group categories: errors', () => {
  it('validates the body, naming the field', async () => {
    const t = await newTenant(ctx);
    const a = api(ctx.app, t.admin.token);
    expect(expectError(await a.post('/api/groups/categories', {}), 400)).toBe('body/name is required');
    expect(expectError(await a.post('/api/groups/categories', { name: '' }), 400)).toMatch(/body\/name/);
    expect(expectError(await a.post('/api/groups/categories', { name: 'x'.repeat(201) }), 400)).toMatch(/body\/name/);
    expect(expectError(await a.post('/api/groups/categories', { name: 'X', purpose: 'p'.repeat(5001) }), 400)).toMatch(/body\/purpose/);
    expect(expectError(await a.post('/api/groups/categories', { name: 'X', description: 'd'.repeat(5001) }), 400)).toMatch(/body\/description/);
    expect(expectError(await a.post('/api/groups/categories', { name: 'X', level: 'high' }), 400)).toMatch(/body\/level/);
    expect(expectError(await a.post('/api/groups/categories', { name: 'X', level: 0 }), 400)).toMatch(/body\/level/);
    expect(expectError(await a.post('/api/groups/categories', { name: ['X'] }), 400)).toMatch(/body\/name/);
    expect(expectError(await a.get('/api/groups/categories?limit=0'), 400)).toMatch(/querystring\/limit/);
  });

  it('a duplicate name (any case) is 409 and nothing is written', async () => {
    const t = await newTenant(ctx);
    const a = api(ctx.app, t.admin.token);
    expect(expectError(await a.post('/api/groups/categories', { name: 'zone' }), 409)).toBe("A group category named 'zone' already exists");
    expect((await a.post('/api/groups/categories', { name: 'Choir' })).statusCode).toBe(201);
    expectError(await a.post('/api/groups/categories', { name: ' CHOIR ' }), 409);
    expect((await a.get('/api/groups/categories')).json().total).toBe(7);
  });
});
