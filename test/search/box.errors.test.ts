import { beforeAll, describe, expect, it } from 'vitest';
import { api, expectError, setupTestApp } from '../helpers/app.js';
import { newTenant, type TestTenant } from '../helpers/factories.js';

const ctx = setupTestApp();

describe('GET /api/search: bad input', () => {
  let t: TestTenant;
  const search = (query: string) => api(ctx.app, t.admin.token).get(`/api/search?${query}`);

  beforeAll(async () => {
    t = await newTenant(ctx);
  });

  it('q is required, 2–100 characters (after trimming)', async () => {
    expect(expectError(await search(''), 400)).toContain('q');
    expect(expectError(await search('q=a'), 400)).toContain('q');
    expect(expectError(await search(`q=${'a'.repeat(101)}`), 400)).toContain('q');
    expect(expectError(await search(`q=${encodeURIComponent(' a ')}`), 400)).toContain('q');
    expect((await search(`q=${'a'.repeat(100)}`)).statusCode).toBe(200);
    expect((await search('q=ab')).statusCode).toBe(200);
  });

  it('an unknown type is 400 naming it; an empty item too', async () => {
    expect(expectError(await search('q=ab&types=contacts,widgets'), 400)).toContain('widgets');
    expect(expectError(await search('q=ab&types='), 400)).toContain('types');
    expect(expectError(await search('q=ab&types=contacts,,groups'), 400)).toContain('types');
  });

  it('limit is an integer from 1 to 20', async () => {
    for (const limit of ['0', '21', '-1', '1.5', 'abc']) expect(expectError(await search(`q=ab&limit=${limit}`), 400)).toContain('limit');
    expect((await search('q=ab&limit=20')).statusCode).toBe(200);
  });

  it('a NUL character in q is 400, not a database error', async () => {
    expectError(await search('q=ab%00cd'), 400);
  });
});
