import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { Writable } from 'node:stream';
import { afterAll, describe, expect, it } from 'vitest';
import { runCli } from '../../src/cli/main.js';
import { contactRow, isoDate } from '../../src/lib/import-formats.js';
import { recorded } from '../changes/helpers.js';
import { api, setupTestApp } from '../helpers/app.js';
import { newTenant, newUser, type TestTenant } from '../helpers/factories.js';
import { newPerson } from '../helpers/contacts.factories.js';

/**
 * The header mappings and row rules are one set (src/lib/import-formats.ts, issue 34): the same
 * Planning Center export through the HTTP CSV import and through `parish import` gives the same people.
 */
const ctx = setupTestApp();
const fixture = path.resolve(import.meta.dirname, '../fixtures/import/planning-center-export.csv');
const work = fs.mkdtempSync(path.join(os.tmpdir(), 'parish-import-formats-'));
afterAll(() => fs.rmSync(work, { recursive: true, force: true }));

const importCsv = (t: TestTenant, text: string) =>
  ctx.app.inject({ method: 'POST', url: '/api/crm/contacts/import', payload: text, headers: { authorization: `Bearer ${t.admin.token}`, 'content-type': 'text/csv' } });
const importJson = (t: TestTenant, rows: unknown[]) => api(ctx.app, t.admin.token).post('/api/crm/contacts/import', { contacts: rows });

async function cli(t: TestTenant) {
  const file = path.join(work, `${crypto.randomUUID()}.csv`);
  fs.copyFileSync(fixture, file);
  let stdout = '';
  let stderr = '';
  const sink = (append: (s: string) => void) => new Writable({ write: (chunk, _enc, done) => (append(String(chunk)), done()) });
  const code = await runCli(['import', 'contacts', '--tenant', t.slug, file], {
    db: ctx.db,
    io: { stdout: sink((s) => (stdout += s)), stderr: sink((s) => (stderr += s)) },
  });
  return { code, stdout, stderr };
}

interface Person {
  person: { firstName: string; lastName: string; gender: string | null; dateOfBirth: string | null };
  emails: { value: string; isPrimary: boolean }[];
  phones: { value: string; isPrimary: boolean }[];
  addresses: { street: string | null; city: string | null; country: string | null; isPrimary: boolean }[];
  household: { name: string; role: string } | null;
}

/** Every person of the tenant as the single read shows them, without ids, by first name. */
async function people(t: TestTenant): Promise<Record<string, Person>> {
  const a = api(ctx.app, t.admin.token);
  const list = (await a.get('/api/crm/contacts?limit=100')).json() as { data: { id: number; person: { firstName: string } | null }[] };
  const out: Record<string, Person> = {};
  for (const c of list.data) {
    if (!c.person || c.id === t.admin.contactId) continue;
    const full = (await a.get(`/api/crm/contacts/${c.id}`)).json();
    out[full.person.firstName] = {
      person: { firstName: full.person.firstName, lastName: full.person.lastName, gender: full.person.gender, dateOfBirth: full.person.dateOfBirth },
      emails: full.emails,
      phones: full.phones,
      addresses: full.addresses,
      household: full.household && { name: full.household.name, role: full.household.role },
    };
  }
  return out;
}

describe('one set of header mappings and row rules for the HTTP import and the CLI', { timeout: 120_000 }, () => {
  it('a Planning Center export gives the same people through HTTP and the CLI: Home Email kept, gender M accepted, birth dates, addresses and households', async () => {
    const web = await newTenant(ctx);
    const res = await importCsv(web, fs.readFileSync(fixture, 'utf8'));
    expect(res.statusCode).toBe(200);
    // The blank line is no row.
    expect(res.json()).toMatchObject({ total: 4, created: 4, updated: 0, unchanged: 0, failed: 0, errors: [] });

    const shell = await newTenant(ctx);
    const run = await cli(shell);
    expect(run.code, run.stderr).toBe(0);
    expect(run.stdout).toContain('contacts, Planning Center People format, 4 rows');
    expect(run.stdout).toContain('created 4, updated 0, unchanged 0 (already up to date), failed 0');

    const fromWeb = await people(web);
    expect(fromWeb).toEqual(await people(shell));
    const home = { street: 'Plot 12 Kira Road', city: 'Kampala', country: 'Uganda', isPrimary: true };
    expect(fromWeb.Daniel).toEqual({
      person: { firstName: 'Daniel', lastName: 'Okello', gender: 'Male', dateOfBirth: '1965-09-30' },
      emails: [{ value: 'daniel.okello@example.org', isPrimary: true }],
      phones: [{ value: '+256 772 300001', isPrimary: true }],
      addresses: [home],
      household: { name: expect.any(String), role: 'Head' },
    });
    // Planning Center writes US dates: 04/12/1968 is April 12.
    expect(fromWeb.Peggy).toMatchObject({ person: { gender: 'Female', dateOfBirth: '1968-04-12' }, emails: [{ value: 'Peggy.Okello@example.org' }], household: { role: 'Other' } });
    expect(fromWeb.Tim).toMatchObject({ person: { gender: 'Male', dateOfBirth: '2014-02-02' }, phones: [], addresses: [home], household: { role: 'Other' } });
    expect(fromWeb.Grace).toEqual({
      person: { firstName: 'Grace', lastName: 'Namutebi', gender: 'Female', dateOfBirth: null },
      emails: [{ value: 'grace@work.example.org', isPrimary: true }],
      phones: [{ value: '0772 300004', isPrimary: true }],
      addresses: [{ street: null, city: 'Entebbe', country: null, isPrimary: true }],
      household: null,
    });
    expect(new Set(Object.values(fromWeb).map((p) => p.household?.name)).size).toBe(2);
  });

  it('a second import of the same export is all unchanged and records no change, through HTTP and the CLI', async () => {
    const t = await newTenant(ctx);
    expect((await importCsv(t, fs.readFileSync(fixture, 'utf8'))).json()).toMatchObject({ created: 4, failed: 0 });
    const before = await people(t);

    const again = await recorded(ctx, t.id, () => importCsv(t, fs.readFileSync(fixture, 'utf8')));
    expect(again.result.json()).toMatchObject({ total: 4, created: 0, updated: 0, unchanged: 4, failed: 0, errors: [] });
    expect(again.changes).toEqual([]);

    const byCli = await recorded(ctx, t.id, () => cli(t));
    expect(byCli.result.code, byCli.result.stderr).toBe(0);
    expect(byCli.result.stdout).toContain('created 0, updated 0, unchanged 4 (already up to date), failed 0');
    expect(byCli.changes).toEqual([]);
    expect(await people(t)).toEqual(before);
  });

  it('JSON takes the same values: gender letters, birth dates and addresses; a changed birth date or a new address updates, recording the date', async () => {
    const t = await newTenant(ctx);
    const p = await newPerson(ctx, t, 'Ruth', 'Mugisha', {
      person: { firstName: 'Ruth', lastName: 'Mugisha', gender: 'Female', dateOfBirth: '1982-07-19' },
      emails: [{ value: 'ruth@example.org' }],
      addresses: [{ street: 'Plot 4', city: 'Kampala', country: 'Uganda' }],
    });
    const first = await recorded(ctx, t.id, () => importJson(t, [
      { firstName: 'Peter', lastName: 'Mugisha', email: 'peter@example.org', gender: 'm', dateOfBirth: '1980-02-01', street: 'Plot 4', city: 'Kampala', country: 'Uganda' },
      // Ruth as she is: the same address in another case, the same date in another form.
      { firstName: 'Ruth', lastName: 'Mugisha', email: 'RUTH@example.org', gender: 'F', dateOfBirth: '1982/07/19', street: 'plot 4', city: 'KAMPALA', country: 'uganda' },
    ]));
    expect(first.result.json()).toMatchObject({ total: 2, created: 1, updated: 0, unchanged: 1, failed: 0, errors: [] });
    expect(first.changes.map((c) => c.type)).toEqual(['contact.created']);

    const second = await recorded(ctx, t.id, () => importJson(t, [
      { firstName: 'Ruth', lastName: 'Mugisha', email: 'ruth@example.org', dateOfBirth: 'Jul 20, 1982' },
    ]));
    expect(second.result.json()).toMatchObject({ total: 1, created: 0, updated: 1, unchanged: 0, failed: 0, errors: [] });
    expect(second.changes.map((c) => [c.type, c.entityId, c.changes])).toEqual([['contact.updated', p.id, { dateOfBirth: { from: '1982-07-19', to: '1982-07-20' } }]]);
    // Only a new address: updated too.
    const third = await recorded(ctx, t.id, () => importJson(t, [{ firstName: 'Ruth', lastName: 'Mugisha', email: 'ruth@example.org', city: 'Entebbe' }]));
    expect(third.result.json()).toMatchObject({ updated: 1, unchanged: 0 });
    expect(third.changes.map((c) => [c.type, c.entityId])).toEqual([['contact.updated', p.id]]);
    const ruth = (await api(ctx.app, t.admin.token).get(`/api/crm/contacts/${p.id}`)).json();
    expect(ruth.person).toMatchObject({ gender: 'Female', dateOfBirth: '1982-07-20' });
    expect(ruth.addresses).toEqual([
      { street: 'Plot 4', city: 'Kampala', country: 'Uganda', isPrimary: true },
      { street: null, city: 'Entebbe', country: null, isPrimary: false },
    ]);
  });

  it('a birth date, gender or address it cannot read is that row\'s error, by name; the other rows are imported', async () => {
    const t = await newTenant(ctx);
    const csv = [
      'First Name,Last Name,Home Email,Mobile Phone Number,Gender,Birthdate,Home Address City',
      'Ok,Person,ok@example.org,,M,1/2/1990,Gulu',
      'Bad,Date,bad@example.org,,F,1990-02-30,',
      'Bad,Gender,gender@example.org,,X,,',
      'Long,City,city@example.org,,,,' + 'x'.repeat(201),
      'Never,Date,never@example.org,,,someday,',
    ].join('\n');
    const res = await importCsv(t, csv);
    expect(res.statusCode).toBe(200);
    const body = res.json();
    expect(body).toMatchObject({ total: 5, created: 1, failed: 4 });
    expect(body.errors.map((e: { row: number }) => e.row)).toEqual([2, 3, 4, 5]);
    expect(body.errors[0].message).toMatch(/^dateOfBirth /);
    expect(body.errors[1].message).toMatch(/^gender /);
    expect(body.errors[2].message).toMatch(/^city /);
    expect(body.errors[3].message).toMatch(/^dateOfBirth /);
    // Planning Center writes month first: 1/2/1990 is January 2.
    const ok = (await api(ctx.app, t.admin.token).get('/api/crm/contacts?q=ok%40example.org')).json().data[0];
    const full = (await api(ctx.app, t.admin.token).get(`/api/crm/contacts/${ok.id}`)).json();
    expect(full.person).toMatchObject({ gender: 'Male', dateOfBirth: '1990-01-02' });
    expect(full.addresses).toEqual([{ street: null, city: 'Gulu', country: null, isPrimary: true }]);
  });

  it('the row rules: dates as those systems write them, gender words, email and phone cleanup, other systems\' role words', () => {
    expect(isoDate('1965-09-30T00:00:00Z')).toBe('1965-09-30');
    expect(isoDate('30/09/1965')).toBe('1965-09-30');
    expect(isoDate('09/30/1965')).toBe('1965-09-30');
    expect(isoDate('01/02/1965')).toBe('01/02/1965');
    expect(isoDate('01/02/1965', 'day-first')).toBe('1965-02-01');
    expect(isoDate('30 September 1965')).toBe('1965-09-30');
    expect(contactRow({ firstName: ' Ann ', gender: 'FEMALE', email: 'mailto:ann@example.org', phone: " '0772  100 200", householdKey: '7', householdRole: 'Head of Household', city: '  ' }, { families: {} })).toEqual({
      firstName: 'Ann', gender: 'Female', email: 'ann@example.org', phone: '0772 100 200', householdKey: '7', householdRole: 'Head',
    });
    // Parish's own columns take the role words too (as the CLI always did); an unknown word is left for the import to refuse.
    expect(contactRow({ householdKey: '7', householdRole: 'son' })).toEqual({ householdKey: '7', householdRole: 'Child' });
    expect(contactRow({ householdKey: '7', householdRole: 'Cousin' })).toEqual({ householdKey: '7', householdRole: 'Cousin' });
  });
});

describe('the import wizard: the header mappings and a dry run through HTTP', () => {
  it('GET /api/crm/contacts/import/formats lists the exports recognised, with their headers per field', async () => {
    const t = await newTenant(ctx);
    const res = await api(ctx.app, t.admin.token).get('/api/crm/contacts/import/formats');
    expect(res.statusCode).toBe(200);
    const body = res.json();
    expect(body.fields).toEqual(['firstName', 'lastName', 'email', 'phone', 'gender', 'dateOfBirth', 'street', 'city', 'country', 'householdKey', 'householdRole']);
    expect(body.data.map((f: { name: string }) => f.name)).toEqual(['Planning Center People', 'ChurchCRM', 'Breeze', 'Elvanto', 'Parish']);
    const pc = body.data[0];
    expect(pc.recognisedBy).toContain('Home Email');
    expect(pc.columns.email[0]).toBe('Home Email');
    expect(pc.columns.dateOfBirth).toEqual(['Birthdate', 'Birthday']);
    expect(pc.columns.householdPrimary).toBeUndefined();
    expect(pc.dates).toBe('month-first');
    expect(body.data[4]).toMatchObject({ recognisedBy: [], dates: null, columns: { firstName: ['firstName'] } });
  });

  it('403 for the formats and the import without contacts:write', async () => {
    const t = await newTenant(ctx);
    const reader = await newUser(ctx, t, ['contacts:read']);
    const a = api(ctx.app, reader.token);
    expect((await a.get('/api/crm/contacts/import/formats')).statusCode).toBe(403);
    expect((await a.post('/api/crm/contacts/import?dryRun=true', { contacts: [] })).statusCode).toBe(403);
  });

  it('dryRun (query or JSON body) counts the rows as the import would and writes nothing', async () => {
    const t = await newTenant(ctx);
    const csv = fs.readFileSync(fixture, 'utf8');
    const dry = await recorded(ctx, t.id, () =>
      ctx.app.inject({ method: 'POST', url: '/api/crm/contacts/import?dryRun=true', payload: csv, headers: { authorization: `Bearer ${t.admin.token}`, 'content-type': 'text/csv' } }));
    expect(dry.result.json()).toMatchObject({ total: 4, created: 4, updated: 0, unchanged: 0, failed: 0, errors: [] });
    expect(dry.changes).toEqual([]);
    expect(Object.keys(await people(t))).toEqual([]);

    await importCsv(t, csv);
    const again = await recorded(ctx, t.id, () => api(ctx.app, t.admin.token).post('/api/crm/contacts/import', {
      dryRun: true,
      contacts: [{ firstName: 'Daniel', lastName: 'Okello', email: 'daniel.okello@example.org', gender: 'M' }, { firstName: 'New', lastName: 'One', gender: 'X' }, { firstName: 'Tim', lastName: 'Okello', email: 'tim.okello@example.org', dateOfBirth: '2014-02-03' }],
    }));
    expect(again.result.json()).toMatchObject({ total: 3, created: 0, updated: 1, unchanged: 1, failed: 1, errors: [{ row: 2 }] });
    expect(again.changes).toEqual([]);
    expect((await people(t)).Tim.person.dateOfBirth).toBe('2014-02-02');
  });
});
