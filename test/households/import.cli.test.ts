import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { Writable } from 'node:stream';
import { afterAll, describe, expect, it } from 'vitest';
import { runCli } from '../../src/cli/main.js';
import { householdRole, isHouseholdPrimary } from '../../src/cli/formats.js';
import { lastChangeId, storedChanges } from '../changes/helpers.js';
import { api, setupTestApp } from '../helpers/app.js';
import { newTenant, type TestTenant } from '../helpers/factories.js';

/** `parish import contacts` with the families of Planning Center, Breeze and ChurchCRM exports (modules-contract §8 "Import"). */
const ctx = setupTestApp();
const fixtures = path.resolve(import.meta.dirname, '../fixtures/import');
const work = fs.mkdtempSync(path.join(os.tmpdir(), 'parish-households-import-'));
afterAll(() => fs.rmSync(work, { recursive: true, force: true }));

function fixture(name: string): string {
  const file = path.join(work, `${crypto.randomUUID()}-${name}`);
  fs.copyFileSync(path.join(fixtures, name), file);
  return file;
}

function sink() {
  let text = '';
  const stream = new Writable({ write: (chunk, _enc, done) => ((text += chunk), done()) });
  return { stream, text: () => text };
}

async function parish(...argv: string[]) {
  const out = sink();
  const err = sink();
  const code = await runCli(argv, { db: ctx.db, io: { stdout: out.stream, stderr: err.stream } });
  return { code, stdout: out.text(), stderr: err.text() };
}

interface Household {
  name: string;
  primaryContact: { firstName: string } | null;
  members: { contact: { firstName: string }; role: string }[];
}

/** The tenant's households as "name: first-name role, …" (by name), with their primary contact. */
async function families(t: TestTenant) {
  const res = await api(ctx.app, t.admin.token).get('/api/crm/households?limit=100');
  expect(res.statusCode).toBe(200);
  return (res.json().data as Household[]).map((h) => ({
    name: h.name, primary: h.primaryContact?.firstName ?? null, members: h.members.map((m) => `${m.contact.firstName} ${m.role}`),
  }));
}

describe('parish import contacts: families', { timeout: 120_000 }, () => {
  it('imports each system\'s families; a second run changes nothing and says so', async () => {
    const cases = [
      {
        file: 'planning-center-households.csv', format: 'Planning Center People',
        households: [
          { name: 'Namutebi household', primary: 'Grace', members: ['Grace Head'] },
          { name: 'Okello household', primary: 'Daniel', members: ['Daniel Head', 'Peggy Other', 'Tim Other'] },
        ],
      },
      {
        file: 'breeze-families.csv', format: 'Breeze',
        households: [{ name: 'Mukasa household', primary: 'Samuel', members: ['Samuel Head', 'Esther Spouse', 'Joy Child', 'Agnes Other'] }],
      },
      {
        file: 'churchcrm-families.csv', format: 'ChurchCRM',
        households: [
          { name: 'Nsubuga household', primary: 'Paul', members: ['Paul Head', 'Sarah Spouse', 'Ivy Child'] },
          { name: 'Opio household', primary: 'Kizza', members: ['Kizza Other'] },
        ],
      },
    ];
    for (const c of cases) {
      const t = await newTenant(ctx);
      const file = fixture(c.file);
      const dry = await parish('import', 'contacts', '--tenant', t.slug, '--dry-run', file);
      expect(dry.stdout, c.file).toContain('would create 5, would update 0, unchanged 0 (already up to date), failed 0');
      expect(await families(t)).toEqual([]);

      const first = await parish('import', 'contacts', '--tenant', t.slug, file);
      expect(first.code, `${c.file}: ${first.stderr}${first.stdout}`).toBe(0);
      expect(first.stdout).toContain(`contacts, ${c.format} format, 5 rows`);
      expect(first.stdout).toContain('created 5, updated 0, unchanged 0 (already up to date), failed 0');
      expect(first.stdout).toContain('householdKey ← ');
      const made = await families(t);
      expect(made, c.file).toEqual(c.households);
      // The person outside any family (no key, ChurchCRM's family 0, Breeze's Unassigned) is in none, as the tenant's admin.
      const people = (await api(ctx.app, t.admin.token).get('/api/crm/contacts?limit=100')).json().data as { householdId: number | null }[];
      expect(people, c.file).toHaveLength(6);
      expect(people.filter((p) => p.householdId === null), c.file).toHaveLength(2);

      const before = await lastChangeId(ctx, t.id);
      const again = await parish('import', 'contacts', '--tenant', t.slug, file);
      expect(again.code, again.stderr).toBe(0);
      expect(again.stdout, c.file).toContain('created 0, updated 0, unchanged 5 (already up to date), failed 0');
      expect(await storedChanges(ctx, t.id, before), c.file).toEqual([]);
      expect(await families(t)).toEqual(made);
    }
  });

  it('Parish\'s own columns take role words; a role without a key and an unknown role fail with their reason in the errors file', async () => {
    const t = await newTenant(ctx);
    const file = path.join(work, `${crypto.randomUUID()}-families.csv`);
    fs.writeFileSync(file, 'firstName,lastName,email,householdKey,householdRole\nAda,Kintu,ada@example.org,K-1,head of household\nBob,Kintu,bob@example.org,K-1,son\nCy,Kintu,cy@example.org,,Spouse\nDee,Kintu,dee@example.org,K-1,Cousin\n');
    const run = await parish('import', 'contacts', '--tenant', t.slug, file);
    expect(run.code).toBe(1);
    expect(run.stdout).toContain('created 2, updated 0, unchanged 0 (already up to date), failed 2');
    const lines = fs.readFileSync(`${file}.errors.csv`, 'utf8').trim().split('\n');
    expect(lines.slice(1)).toEqual([
      '3,householdRole needs a householdKey,Cy,Kintu,cy@example.org,,Spouse',
      '4,"householdRole must be one of: Head, Spouse, Child, Other",Dee,Kintu,dee@example.org,K-1,Cousin',
    ]);
    expect(await families(t)).toEqual([{ name: 'Kintu household', primary: 'Ada', members: ['Ada Head', 'Bob Child'] }]);
  });

  it('role words and Planning Center\'s primary contact', () => {
    expect(['Head of Household', 'HEAD', 'Spouse', 'wife', 'Child', 'Daughter', 'Adult', 'Other Relative', 'Non Relative', 'Unassigned', 'Cousin'].map(householdRole))
      .toEqual(['Head', 'Head', 'Spouse', 'Spouse', 'Child', 'Child', 'Other', 'Other', 'Other', 'Other', 'Cousin']);
    expect(isHouseholdPrimary('Daniel Okello', { firstName: 'Daniel', lastName: 'Okello' })).toBe(true);
    expect(isHouseholdPrimary('Daniel Okello', { firstName: 'Peggy', lastName: 'Okello' })).toBe(false);
    expect(isHouseholdPrimary('TRUE', {})).toBe(true);
    expect(isHouseholdPrimary('false', { firstName: 'Peggy', lastName: 'Okello' })).toBe(false);
  });
});
