import { beforeAll, describe, expect, it } from 'vitest';
import { api, setupTestApp } from '../helpers/app.js';
import { newTenant, type TestTenant } from '../helpers/factories.js';

/**
 * A frequent term (12 of the tenant's 31 contacts) is answered by walking the list-order index
 * when that reads fewer rows than fetching every match and sorting (contact_search_page, migration
 * 0017): small pages near the start walk, later and larger pages sort. Every page must be the same
 * slice of one order, with the exact total, through the contacts list `q` and the search box.
 */
const ctx = setupTestApp();

const LAST = ['Manson', 'Anson', 'Hanson', 'Branson'];
const FIRST = ['Zed', 'amy', 'Lee'];

describe('a frequent search term', () => {
  let t: TestTenant;
  let expected: number[];
  let folded: number[];
  let hanna: number;
  const get = (path: string) => api(ctx.app, t.admin.token).get(path);
  const list = async (query: string) => (await get(`/api/crm/contacts?${query}`)).json();

  beforeAll(async () => {
    t = await newTenant(ctx);
    const rows = [
      ...LAST.flatMap((lastName) => FIRST.map((firstName) => ({ firstName, lastName }))),
      { firstName: 'Hanna', lastName: 'Hänson' },
      ...Array.from({ length: 17 }, (_, i) => ({ firstName: `Other${i}`, lastName: 'Nakato' })),
    ];
    const res = await api(ctx.app, t.admin.token).post('/api/crm/contacts/import', { contacts: rows });
    expect(res.json()).toMatchObject({ created: rows.length });
    const all = (await list('limit=100')).data as { id: number; person: { firstName: string; lastName: string } }[];
    const key = (c: (typeof all)[number]) => `${c.person.lastName.toLowerCase()} ${c.person.firstName.toLowerCase()}`;
    // The list is in (last name, first name, id) order already.
    expected = all.filter((c) => key(c).includes('anson')).map((c) => c.id);
    folded = all.filter((c) => key(c).includes('anson') || c.person.lastName === 'Hänson').map((c) => c.id);
    hanna = all.find((c) => c.person.lastName === 'Hänson')!.id;
    expect(expected).toHaveLength(12);
  });

  it('contacts list: every page of 2 is the next slice of one order, each with the exact total; past the end, the total', async () => {
    const seen: number[] = [];
    for (let page = 1; page <= 6; page++) {
      const body = await list(`q=ANSON&limit=2&page=${page}`);
      expect(body.total).toBe(12);
      seen.push(...body.data.map((c: { id: number }) => c.id));
    }
    expect(seen).toEqual(expected);
    expect((await list('q=anson&limit=20')).data.map((c: { id: number }) => c.id)).toEqual(expected);
    expect(await list('q=anson&limit=2&page=7')).toMatchObject({ total: 12, data: [] });
  });

  it('with category and status filters, on the people list too', async () => {
    expect((await (await get('/api/crm/people?q=anson&limit=2')).json()).data.map((c: { id: number }) => c.id)).toEqual(expected.slice(0, 2));
    expect(await list('q=anson&category=Company&limit=2')).toMatchObject({ total: 0, data: [] });
    const put = await api(ctx.app, t.admin.token).put(`/api/crm/contacts/${expected[1]}`, { status: 'Inactive' });
    expect(put.statusCode).toBe(200);
    expect(await list('q=anson&status=Inactive&limit=2')).toMatchObject({ total: 1, data: [{ id: expected[1] }] });
    const active = await list('q=anson&status=Active&limit=2');
    expect(active.total).toBe(11);
    expect(active.data.map((c: { id: number }) => c.id)).toEqual([expected[0], expected[2]]);
    await api(ctx.app, t.admin.token).put(`/api/crm/contacts/${expected[1]}`, { status: 'Active' });
  });

  it('search box: the same order with accents folded ("anson" finds "Hänson"), any limit', async () => {
    const box = async (query: string) => (await get(`/api/search?types=contacts&${query}`)).json();
    const small = await box('q=anson&limit=2');
    expect(small.totals.contacts).toBe(13);
    expect(small.results.contacts.map((h: { id: number }) => h.id)).toEqual(folded.slice(0, 2));
    expect((await box('q=anson&limit=20')).results.contacts.map((h: { id: number }) => h.id)).toEqual(folded);
    expect((await box('q=hanson&limit=20')).results.contacts.map((h: { id: number }) => h.id)).toContain(hanna);
  });

  it('LIKE metacharacters stay literal; a rare term is found among the frequent one', async () => {
    expect((await list('q=an_on')).total).toBe(0);
    expect((await list('q=%25anson')).total).toBe(0);
    expect((await list('q=branson&limit=2')).total).toBe(3);
  });
});
