import { describe, expect, it } from 'vitest';
import { api, expectError, setupTestApp } from '../helpers/app.js';
import { newTenant } from '../helpers/factories.js';

const ctx = setupTestApp();

describe('groups import: errors', () => {
  it('a malformed body is 400 naming the field; other content types are 415', async () => {
    const t = await newTenant(ctx);
    const a = api(ctx.app, t.admin.token);
    expect(expectError(await a.post('/api/groups/import', {}), 400)).toBe('body/groups is required');
    expect(expectError(await a.post('/api/groups/import', { groups: 'x' }), 400)).toMatch(/body\/groups/);
    expect(expectError(await a.post('/api/groups/import', { groups: [{ name: 5, category: 'Zone' }] }), 400)).toMatch(/body\/groups\/0\/name/);
    expect(expectError(await a.post('/api/groups/import', { groups: [{ name: 'x'.repeat(201), category: 'Zone' }] }), 400)).toMatch(/body\/groups\/0\/name/);
    expectError(await a.post('/api/groups/import', '{"groups": [', { 'content-type': 'application/json' }), 400);
    expectError(await a.post('/api/groups/import', 'name,category\nA,Zone', { 'content-type': 'text/plain' }), 415);
    expectError(await a.post('/api/groups/import', '"unterminated', { 'content-type': 'text/csv' }), 400);
    expect((await a.get('/api/groups')).json().total).toBe(0);
  });

  it('too many rows is 400; a body over 10 MB is 413', async () => {
    const t = await newTenant(ctx);
    const a = api(ctx.app, t.admin.token);
    const rows = Array.from({ length: 10_001 }, (_, i) => ({ name: `G${i}`, category: 'Zone' }));
    expect(expectError(await a.post('/api/groups/import', { groups: rows }), 400)).toMatch(/body\/groups/);
    const csv = `name,category\n${rows.map((r) => `${r.name},${r.category}`).join('\n')}`;
    expect(expectError(await a.post('/api/groups/import', csv, { 'content-type': 'text/csv' }), 400)).toMatch(/at most 10000 rows/);
    expectError(await a.post('/api/groups/import', `name,category\n${'x'.repeat(11 * 1024 * 1024)},Zone`, { 'content-type': 'text/csv' }), 413);
    expect((await a.get('/api/groups')).json().total).toBe(0);
  });

  it('CSV rows with missing cells or unknown columns are row errors, not a failed file', async () => {
    const t = await newTenant(ctx);
    const a = api(ctx.app, t.admin.token);
    const csv = 'name,category,parentName,extra\nRoot,Church,,x\n,Zone,Root,\nNoCategory,,Root,\nZone 1,zone,root,y\n';
    const res = await a.post('/api/groups/import', csv, { 'content-type': 'text/csv; charset=utf-8' });
    expect(res.statusCode).toBe(200);
    expect(res.json()).toEqual({
      total: 4, created: 2, skipped: 0, failed: 2,
      errors: [{ row: 2, message: 'name is required' }, { row: 3, message: 'category is required' }],
    });
  });
});
