import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { Writable } from 'node:stream';
import { and, eq, sql } from 'drizzle-orm';
import { afterAll, describe, expect, it } from 'vitest';
import { runCli } from '../../src/cli/main.js';
import { changes } from '../../src/db/schema/index.js';
import { api, setupTestApp } from '../helpers/app.js';
import { newTenant, newUser, type TestTenant } from '../helpers/factories.js';

/** `parish import …` run in-process (runCli, as src/cli.ts runs it) against this file's test database. */
const ctx = setupTestApp();
const fixtures = path.resolve(import.meta.dirname, '../fixtures/import');
const work = fs.mkdtempSync(path.join(os.tmpdir(), 'parish-import-'));
afterAll(() => fs.rmSync(work, { recursive: true, force: true }));

/** A fixture copied to a temp directory, so the errors file lands beside the copy. */
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

async function search(t: TestTenant, q: string) {
  return (await api(ctx.app, t.admin.token).get(`/api/crm/contacts?q=${encodeURIComponent(q)}`)).json() as { total: number; data: { person: { firstName: string; lastName: string; gender: string | null }; emails: { value: string }[]; phones: { value: string }[] }[] };
}

describe('parish import', { timeout: 120_000 }, () => {
  it('recognises Planning Center People, ChurchCRM, Breeze and Elvanto exports by their headers', async () => {
    const cases = [
      { file: 'planning-center-people.csv', format: 'Planning Center People', created: 3, failed: 0, q: 'peggy.okello', first: 'Peggy', phone: '+256 772 100001', gender: 'Female' },
      { file: 'churchcrm-people.csv', format: 'ChurchCRM', created: 3, failed: 0, q: '414300302', first: 'Ruth', phone: '+256 414 300302', gender: 'Female' },
      { file: 'breeze-people.csv', format: 'Breeze', created: 2, failed: 1, q: 'sam.kato', first: 'Samuel', phone: '256-772-400001', gender: 'Male' },
      { file: 'elvanto-people.csv', format: 'Elvanto', created: 2, failed: 0, q: 'ssempala', first: 'Jon', phone: '0772 500001', gender: 'Male' },
    ];
    for (const c of cases) {
      const t = await newTenant(ctx);
      const run = await parish('import', 'contacts', '--tenant', t.slug, fixture(c.file));
      // A run with failed rows exits 1 and says so; no progress bar when stderr is not a terminal.
      expect(run.code, run.stderr).toBe(c.failed ? 1 : 0);
      expect(run.stderr).toBe(c.failed ? `${c.failed} row failed: fix ${run.stdout.match(/: (\S+\.errors\.csv)/)?.[1]} and import it (exit status 1)\n` : '');
      expect(run.stdout).toContain(`contacts, ${c.format} format`);
      expect(run.stdout).toContain(`created ${c.created}, updated 0, unchanged 0 (already up to date), failed ${c.failed}`);
      const found = await search(t, c.q);
      expect(found.total, c.file).toBe(1);
      expect(found.data[0].person.firstName).toBe(c.first);
      expect(found.data[0].person.gender).toBe(c.gender);
      expect(found.data[0].phones[0].value).toBe(c.phone);
    }
  });

  it('writes failed rows with their reasons to <file>.errors.csv; changes are recorded under the importing admin; a second run updates', async () => {
    const t = await newTenant(ctx);
    const file = fixture('breeze-people.csv');
    const run = await parish('import', 'contacts', '--tenant', t.slug, file);
    expect(run.stdout).toContain(`failed rows with their reasons: ${file}.errors.csv`);
    const lines = fs.readFileSync(`${file}.errors.csv`, 'utf8').trim().split('\n');
    expect(lines).toHaveLength(2);
    expect(lines[0]).toMatch(/^row,reason,Breeze ID,First Name,Last Name,/);
    expect(lines[1]).toMatch(/^3,lastName is required,40003,Ivan,,/);
    const recorded = await ctx.db
      .select({ n: sql<number>`count(*)::int` })
      .from(changes)
      .where(and(eq(changes.tenantId, t.id), eq(changes.type, 'contact.created'), eq(changes.actorUserId, t.admin.id), sql`${changes.data}->>'imported' = 'true'`));
    expect(recorded[0].n).toBe(2);

    // The same file again: every person already has what it carries; nothing is written or recorded.
    const again = await parish('import', 'contacts', '--tenant', t.slug, file);
    expect(again.stdout).toContain('created 0, updated 0, unchanged 2 (already up to date), failed 1');
    expect(again.code).toBe(1);
    const updates = await ctx.db
      .select({ n: sql<number>`count(*)::int` })
      .from(changes)
      .where(and(eq(changes.tenantId, t.id), eq(changes.type, 'contact.updated')));
    expect(updates[0].n).toBe(0);
  });

  it('skips blank lines (not failed rows) and tells created, updated and unchanged rows apart', async () => {
    const t = await newTenant(ctx);
    const file = path.join(work, `${crypto.randomUUID()}-people.csv`);
    fs.writeFileSync(file, 'firstName,lastName,email\nAda,Lovelace,ada@example.org\n\n,,\n  \nGrace,Hopper,grace@example.org\nAlan,Turing,alan@example.org\n\n');
    const first = await parish('import', 'contacts', '--tenant', t.slug, file);
    expect(first.code, first.stderr).toBe(0);
    expect(first.stdout).toContain('contacts, Parish format, 3 rows');
    expect(first.stdout).toContain('created 3, updated 0, unchanged 0 (already up to date), failed 0');
    expect(first.stdout).toContain('no row failed');
    expect(fs.existsSync(`${file}.errors.csv`)).toBe(false);

    // One person's name changed, one gained a phone, one as before.
    fs.writeFileSync(file, 'firstName,lastName,email,phone\nAda,King,ada@example.org,\nGrace,Hopper,grace@example.org,0772 111222\nAlan,Turing,ALAN@example.org,\n');
    const second = await parish('import', 'contacts', '--tenant', t.slug, file);
    expect(second.code, second.stderr).toBe(0);
    expect(second.stdout).toContain('created 0, updated 2, unchanged 1 (already up to date), failed 0');
    const updated = await ctx.db
      .select({ n: sql<number>`count(*)::int` })
      .from(changes)
      .where(and(eq(changes.tenantId, t.id), eq(changes.type, 'contact.updated')));
    expect(updated[0].n).toBe(2);
    expect((await search(t, 'king')).data[0].emails[0].value).toBe('ada@example.org');
    expect((await search(t, '0772111222')).data[0].person.firstName).toBe('Grace');
  });

  it('--map names the columns of any other export; without it an unknown header is refused with a hint', async () => {
    const t = await newTenant(ctx);
    const file = fixture('other-system-people.csv');
    const refused = await parish('import', 'contacts', '--tenant', t.slug, file);
    expect(refused.code).toBe(1);
    expect(refused.stderr).toContain('gives no firstName, lastName: name the columns with --map column=field');

    const badMap = await parish('import', 'contacts', '--tenant', t.slug, '--map', 'Given=nickname', file);
    expect(badMap.code).toBe(1);
    expect(badMap.stderr).toContain('contacts imports take the fields firstName, lastName, email, phone, gender');

    const run = await parish('import', 'contacts', '--tenant', t.slug, '--map', 'Given=firstName', '--map', 'Family=lastName', '--map', 'Mail=email', '--map', 'Cell=phone', file);
    expect(run.code, run.stderr).toBe(1);
    expect(run.stdout).toContain('created 1, updated 0, unchanged 0 (already up to date), failed 1');
    expect(fs.readFileSync(`${file}.errors.csv`, 'utf8')).toContain('2,email must be a valid email,Moses');
    expect((await search(t, '0772600001')).data[0].emails).toEqual([{ value: 'agnes.auma@example.org', isPrimary: true }]);
  });

  it('--dry-run reports what would happen and writes nothing', async () => {
    const t = await newTenant(ctx);
    const before = await ctx.db.select({ n: sql<number>`count(*)::int` }).from(changes).where(eq(changes.tenantId, t.id));
    const dry = await parish('import', 'contacts', '--tenant', t.slug, '--dry-run', fixture('planning-center-people.csv'));
    expect(dry.code, dry.stderr).toBe(0);
    expect(dry.stdout).toContain('Dry run (nothing written)');
    expect(dry.stdout).toContain('would create 3, would update 0, unchanged 0 (already up to date), failed 0');
    expect((await search(t, 'okello')).total).toBe(0);
    const after = await ctx.db.select({ n: sql<number>`count(*)::int` }).from(changes).where(eq(changes.tenantId, t.id));
    expect(after[0].n).toBe(before[0].n);

    await parish('import', 'contacts', '--tenant', t.slug, fixture('planning-center-people.csv'));
    const dryAgain = await parish('import', 'contacts', '--tenant', t.slug, '--dry-run', fixture('planning-center-people.csv'));
    expect(dryAgain.stdout).toContain('would create 0, would update 0, unchanged 3 (already up to date), failed 0');
  });

  it('imports giving (Breeze contributions: US dates, amounts in major units, donors matched by name) and groups', async () => {
    const t = await newTenant(ctx);
    await parish('import', 'contacts', '--tenant', t.slug, fixture('breeze-people.csv'));
    expect((await api(ctx.app, t.admin.token).post('/api/finance/funds', { name: 'General' })).statusCode).toBe(201);
    const giving = await parish('import', 'giving', '--tenant', t.slug, fixture('breeze-giving.csv'));
    expect(giving.code, giving.stderr).toBe(1);
    expect(giving.stdout).toContain('giving, Breeze format, 3 rows');
    expect(giving.stdout).toContain('created 1, 1 kept as anonymous gifts flagged unmatched, failed 1');
    const list = (await api(ctx.app, t.admin.token).get('/api/finance/contributions?limit=10')).json() as { data: { date: string; amount: number }[] };
    expect(list.data.map((c) => [c.date, c.amount]).sort()).toEqual([['2026-01-07', 5_000_000], ['2026-01-14', 2_000_050]]);

    const groups = await parish('import', 'groups', '--tenant', t.slug, fixture('groups.csv'));
    expect(groups.code, groups.stderr).toBe(1);
    expect(groups.stdout).toContain('created 2, unchanged 0 (already there), failed 1');
  });

  it('refuses an unknown tenant, a user without the permission, and bad arguments, writing nothing', async () => {
    const unknown = await parish('import', 'contacts', '--tenant', 'no-such-church', fixture('breeze-people.csv'));
    expect(unknown.code).toBe(1);
    expect(unknown.stderr).toBe('Error: Unknown tenant: no-such-church\n');

    const t = await newTenant(ctx);
    const clerk = await newUser(ctx, t, ['contacts:read']);
    const denied = await parish('import', 'contacts', '--tenant', t.slug, '--as', clerk.username, fixture('breeze-people.csv'));
    expect(denied.stderr).toBe(`Error: User ${clerk.username} lacks contacts:write to import contacts\n`);
    const noFile = await parish('import', 'contacts', '--tenant', t.slug, path.join(work, 'missing.csv'));
    expect(noFile.stderr).toContain('No such file');
    const badKind = await parish('import', 'people', '--tenant', t.slug, fixture('breeze-people.csv'));
    expect(badKind.stderr).toContain('import takes contacts, giving or groups, not people');
    expect((await search(t, 'kato')).total).toBe(0);
  });
});
