import { sql } from 'drizzle-orm';
import { beforeAll, describe, expect, it } from 'vitest';
import { api, expectError, setupTestApp } from '../helpers/app.js';
import { newTenant, type TestTenant } from '../helpers/factories.js';

const ctx = setupTestApp();

const kampala = { conditions: [{ field: 'city', operator: 'eq', value: 'Kampala' }] };

describe('saved lists: bad input', () => {
  let t: TestTenant;
  let listId: number;
  const as = () => api(ctx.app, t.admin.token);
  const count = async () =>
    Number((await ctx.db.execute(sql`select count(*)::int as n from saved_lists where tenant_id = ${t.id}`) as unknown as { rows: { n: number }[] }).rows[0].n);

  beforeAll(async () => {
    t = await newTenant(ctx);
    listId = (await as().post('/api/search/lists', { name: 'Base', criteria: kampala })).json().id;
  });

  it('POST: name 1–200 characters, criteria required and checked exactly as a search; nothing written', async () => {
    const before = await count();
    expect(expectError(await as().post('/api/search/lists', { criteria: kampala }), 400)).toContain('name');
    expect(expectError(await as().post('/api/search/lists', { name: '   ', criteria: kampala }), 400)).toContain('name');
    expect(expectError(await as().post('/api/search/lists', { name: 'x'.repeat(201), criteria: kampala }), 400)).toContain('name');
    expect(expectError(await as().post('/api/search/lists', { name: 'No criteria' }), 400)).toContain('criteria');
    expect(expectError(await as().post('/api/search/lists', { name: 'Empty', criteria: { conditions: [] } }), 400)).toContain('conditions');
    expect(expectError(await as().post('/api/search/lists', { name: 'Bad field', criteria: { conditions: [{ field: 'shoeSize', operator: 'eq', value: 1 }] } }), 400))
      .toContain('body/criteria/conditions/0/field');
    expect(expectError(await as().post('/api/search/lists', { name: 'Bad op', criteria: { conditions: [{ field: 'age', operator: 'contains', value: 1 }] } }), 400))
      .toContain("'contains'");
    expect(expectError(await as().post('/api/search/lists', { name: 'Bad value', criteria: { conditions: [{ field: 'age', operator: 'eq', value: 'old' }] } }), 400))
      .toContain('body/criteria/conditions/0/value');
    expect(expectError(await as().post('/api/search/lists', { name: 'Bad shared', criteria: kampala, shared: 'yes' }), 400)).toContain('shared');
    expect(expectError(await as().post('/api/search/lists', { name: 'Missing group', criteria: { conditions: [{ field: 'memberOf', operator: 'eq', value: 999999 }] } }), 404))
      .toBe('Group with id 999999 not found');
    expect(await count()).toBe(before);
  });

  it('PUT: the same checks; nothing changed', async () => {
    expect(expectError(await as().put(`/api/search/lists/${listId}`, { name: '' }), 400)).toContain('name');
    expect(expectError(await as().put(`/api/search/lists/${listId}`, { criteria: { conditions: [{ field: 'city', operator: 'gt', value: 'A' }] } }), 400)).toContain("'gt'");
    expect(expectError(await as().put(`/api/search/lists/${listId}`, { criteria: { match: 'most', conditions: kampala.conditions } }), 400)).toContain('match');
    const list = (await as().get(`/api/search/lists/${listId}`)).json();
    expect(list).toMatchObject({ name: 'Base', criteria: { conditions: kampala.conditions } });
  });

  it('bad ids are 400; unknown ids 404', async () => {
    for (const bad of ['abc', '0', '-1', '1.5']) {
      expectError(await as().get(`/api/search/lists/${bad}`), 400);
      expectError(await as().get(`/api/search/lists/${bad}/contacts`), 400);
      expectError(await as().put(`/api/search/lists/${bad}`, { name: 'X' }), 400);
      expectError(await as().delete(`/api/search/lists/${bad}`), 400);
    }
    expect(expectError(await as().get('/api/search/lists/999999'), 404)).toBe('Saved list with id 999999 not found');
    expectError(await as().put('/api/search/lists/999999', { name: 'X' }), 404);
    expectError(await as().delete('/api/search/lists/999999'), 404);
  });

  it('paging parameters are checked as on every list', async () => {
    expectError(await as().get('/api/search/lists?page=0'), 400);
    expectError(await as().get('/api/search/lists?limit=abc'), 400);
    expectError(await as().get('/api/search/lists?shared=maybe'), 400);
    expectError(await as().get(`/api/search/lists/${listId}/contacts?limit=0`), 400);
    expect((await as().get(`/api/search/lists/${listId}/contacts?limit=1000`)).json().limit).toBe(100);
  });
});
