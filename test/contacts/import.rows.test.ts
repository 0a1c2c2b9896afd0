import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { api, setupTestApp } from '../helpers/app.js';
import { newTenant, newUser, type TestTenant } from '../helpers/factories.js';

/**
 * The import's per-row results (the console's import wizard, issue 34): every row's outcome with
 * the person's name, the error's message, the contact written, and the households made; `map`
 * entries for a CSV whose columns the wizard's user mapped by hand.
 */
const ctx = setupTestApp();
const fixture = fs.readFileSync(path.resolve(import.meta.dirname, '../fixtures/import/planning-center-export.csv'), 'utf8');

const importCsv = (t: TestTenant, text: string, query = '') =>
  ctx.app.inject({ method: 'POST', url: `/api/crm/contacts/import${query}`, payload: text, headers: { authorization: `Bearer ${t.admin.token}`, 'content-type': 'text/csv' } });

describe('POST /api/crm/contacts/import: per-row results', () => {
  it('a dry run tells each row\'s outcome and name, writing nothing; the import then names the people and households it made', async () => {
    const t = await newTenant(ctx);
    const grace = fixture.split('\n').find((l) => l.startsWith('30004'))!;
    const broken = `${fixture.trimEnd()}\r\n${grace.trimEnd().replace('30004,,,Grace,,,Namutebi', '30005,,,Nameless,,,').replace(/grace@work[^,]*,[^,]*/, 'nameless@example.org,0772 300005')}\r\n`;
    const dry = await importCsv(t, broken, '?dryRun=true');
    expect(dry.statusCode).toBe(200);
    expect(dry.json()).toMatchObject({ total: 5, created: 4, updated: 0, unchanged: 0, failed: 1, households: [] });
    expect(dry.json().rows).toEqual([
      { row: 1, outcome: 'created', name: 'Daniel Okello' },
      { row: 2, outcome: 'created', name: 'Peggy Okello' },
      { row: 3, outcome: 'created', name: 'Tim Okello' },
      { row: 4, outcome: 'created', name: 'Grace Namutebi' },
      { row: 5, outcome: 'error', name: 'Nameless', message: expect.stringMatching(/lastName/) },
    ]);
    expect((await api(ctx.app, t.admin.token).get('/api/crm/contacts?q=Okello')).json().total).toBe(0);

    const run = await importCsv(t, broken);
    expect(run.statusCode).toBe(200);
    const body = run.json();
    expect(body.rows.map((r: { outcome: string }) => r.outcome)).toEqual(['created', 'created', 'created', 'created', 'error']);
    for (const r of body.rows.slice(0, 4)) {
      const person = await api(ctx.app, t.admin.token).get(`/api/crm/contacts/${r.contactId}`);
      expect(person.statusCode).toBe(200);
      expect(`${person.json().person.firstName} ${person.json().person.lastName}`).toBe(r.name);
    }
    expect(body.rows[4].contactId).toBeUndefined();
    expect(body.households).toEqual([{ id: expect.any(Number), name: expect.stringContaining('Okello'), created: true }]);
    const household = (await api(ctx.app, t.admin.token).get(`/api/crm/households/${body.households[0].id}`)).json();
    expect(household.members).toHaveLength(3);

    // The same file again: every person unchanged, no household made.
    const again = (await importCsv(t, fixture)).json();
    expect(again.rows.map((r: { outcome: string }) => r.outcome)).toEqual(['unchanged', 'unchanged', 'unchanged', 'unchanged']);
    expect(again.rows[0].contactId).toBe(body.rows[0].contactId);
    expect(again.households).toEqual([]);
  });

  it('a later row for a person an earlier row creates is updated; a household problem is that row\'s error', async () => {
    const t = await newTenant(ctx);
    const res = await api(ctx.app, t.admin.token).post('/api/crm/contacts/import', {
      contacts: [
        { firstName: 'Ann', lastName: 'Lee', email: 'ann@example.org', householdKey: 'A' },
        { firstName: 'Ann', lastName: 'Lee', email: 'ann@example.org', phone: '0700 111' },
        { firstName: 'Ann', lastName: 'Lee', email: 'ann@example.org', householdKey: 'B' },
      ],
    });
    expect(res.statusCode).toBe(200);
    expect(res.json().rows).toEqual([
      { row: 1, outcome: 'created', name: 'Ann Lee', contactId: expect.any(Number) },
      { row: 2, outcome: 'updated', name: 'Ann Lee', contactId: res.json().rows[0].contactId },
      { row: 3, outcome: 'error', name: 'Ann Lee', message: 'householdKey B differs from A, given to the same person by row 1' },
    ]);
  });

  it('map: a column the header does not recognise feeds a field, the format still recognised', async () => {
    const t = await newTenant(ctx);
    const csv = 'First Name,Last Name,Home Email,Mobile Phone Number,Church Email,Birthdate\nAda,Obi,,0772 1,ada@church.example.org,1/2/1990\n';
    const plain = (await importCsv(t, csv, '?dryRun=true')).json();
    expect(plain.rows).toEqual([{ row: 1, outcome: 'created', name: 'Ada Obi' }]);
    const res = await importCsv(t, csv, `?map=${encodeURIComponent('Church Email=email')}&map=${encodeURIComponent('Home Email=phone')}`);
    expect(res.statusCode).toBe(200);
    const person = (await api(ctx.app, t.admin.token).get(`/api/crm/contacts/${res.json().rows[0].contactId}`)).json();
    expect(person.emails.map((e: { value: string }) => e.value)).toEqual(['ada@church.example.org']);
    // Planning Center's month-first dates still apply.
    expect(person.person.dateOfBirth).toBe('1990-01-02');
    const one = await importCsv(t, csv, `?dryRun=true&map=${encodeURIComponent('Church Email=email')}`);
    expect(one.statusCode).toBe(200);
  });

  it('map: an unknown column or field is 400 naming it; map with JSON is 400', async () => {
    const t = await newTenant(ctx);
    const csv = 'First Name,Last Name\nAda,Obi\n';
    const column = await importCsv(t, csv, `?map=${encodeURIComponent('Nope=email')}`);
    expect(column.statusCode).toBe(400);
    expect(column.json().message).toMatch(/nope/i);
    const field = await importCsv(t, csv, `?map=${encodeURIComponent('First Name=shoeSize')}`);
    expect(field.statusCode).toBe(400);
    expect(field.json().message).toMatch(/shoeSize/);
    const json = await ctx.app.inject({
      method: 'POST', url: '/api/crm/contacts/import?map=a%3Db', payload: { contacts: [] }, headers: { authorization: `Bearer ${t.admin.token}` },
    });
    expect(json.statusCode).toBe(400);
    const member = await newUser(ctx, t, 'Member');
    const refused = await ctx.app.inject({ method: 'POST', url: '/api/crm/contacts/import?dryRun=true', payload: csv, headers: { authorization: `Bearer ${member.token}`, 'content-type': 'text/csv' } });
    expect(refused.statusCode).toBe(403);
  });
});
