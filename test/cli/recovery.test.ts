import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { Writable } from 'node:stream';
import { afterAll, describe, expect, it } from 'vitest';
import { runCli } from '../../src/cli/main.js';
import { api, setupTestApp } from '../helpers/app.js';
import { newTenant, PASSWORD } from '../helpers/factories.js';

/** `parish tenant list`, `parish user reset-password` and the import's database checks, run in-process (runCli). */
const ctx = setupTestApp();
const work = fs.mkdtempSync(path.join(os.tmpdir(), 'parish-recovery-'));
afterAll(() => fs.rmSync(work, { recursive: true, force: true }));

function sink() {
  let text = '';
  const stream = new Writable({ write: (chunk, _enc, done) => ((text += chunk), done()) });
  return { stream, text: () => text };
}

async function parish(argv: string[], options: { env?: NodeJS.ProcessEnv; db?: boolean } = {}) {
  const out = sink();
  const err = sink();
  const code = await runCli(argv, { db: options.db === false ? undefined : ctx.db, env: options.env, io: { stdout: out.stream, stderr: err.stream } });
  return { code, stdout: out.text(), stderr: err.text() };
}

const login = (slug: string, password: string) =>
  api(ctx.app).post('/api/auth/login', { churchName: slug, username: 'admin', password });

describe('parish tenant list and user reset-password', { timeout: 120_000 }, () => {
  it('lists every tenant by slug and name', async () => {
    const a = await newTenant(ctx);
    const b = await newTenant(ctx);
    const { code, stdout, stderr } = await parish(['tenant', 'list']);
    expect(stderr).toBe('');
    expect(code).toBe(0);
    const lines = stdout.trimEnd().split('\n');
    expect(lines[0]).toMatch(/^SLUG\s+NAME$/);
    expect(lines).toContainEqual(expect.stringMatching(new RegExp(`^${a.slug}\\s+Church ${a.slug}$`)));
    expect(lines).toContainEqual(expect.stringMatching(new RegExp(`^${b.slug}\\s+Church ${b.slug}$`)));
  });

  it('gives the account a new password, printed once, and signs out its sessions', async () => {
    const t = await newTenant(ctx);
    const session = (await login(t.slug, PASSWORD)).json() as { refreshToken: string };

    const { code, stdout } = await parish(['user', 'reset-password', '--tenant', t.slug, '--username', 'ADMIN']);
    expect(code).toBe(0);
    const [, username, slug, password] = /^New password for (\S+) of (\S+): (\S+)\n/.exec(stdout) ?? [];
    expect([username, slug]).toEqual(['admin', t.slug]);
    expect(password.length).toBeGreaterThanOrEqual(16);

    expect((await login(t.slug, PASSWORD)).statusCode).toBe(401);
    expect((await login(t.slug, password)).statusCode).toBe(200);
    // The old session's refresh token no longer works.
    expect((await api(ctx.app).post('/api/auth/refresh', { refreshToken: session.refreshToken })).statusCode).toBe(401);
    // A second reset gives another password.
    const again = await parish(['user', 'reset-password', '--tenant', t.slug, '--username', 'admin']);
    expect(again.stdout).not.toContain(password);
  });

  it('an unknown tenant, an unknown user and missing options exit 1 with one line', async () => {
    const t = await newTenant(ctx);
    const noTenant = await parish(['user', 'reset-password', '--tenant', 'no-such-church', '--username', 'admin']);
    expect(noTenant.code).toBe(1);
    expect(noTenant.stderr).toBe('Error: No tenant with slug no-such-church (npm run parish -- tenant list)\n');
    const noUser = await parish(['user', 'reset-password', '--tenant', t.slug, '--username', 'nobody']);
    expect(noUser.code).toBe(1);
    expect(noUser.stderr).toMatch(/^Error: User nobody not found\n$/);
    const missing = await parish(['user', 'reset-password', '--tenant', t.slug]);
    expect(missing.code).toBe(1);
    expect(missing.stderr).toContain('user reset-password needs --tenant SLUG and --username NAME');
    expect((await login(t.slug, PASSWORD)).statusCode).toBe(200);
  });
});

describe('commands on existing data name the database they open', () => {
  const csv = path.join(work, 'people.csv');
  fs.writeFileSync(csv, 'firstName,lastName\nAda,Lovelace\n');

  it('refuse an embedded data directory without a database instead of creating one', async () => {
    const empty = fs.mkdtempSync(path.join(work, 'empty-'));
    for (const argv of [['import', 'contacts', '--tenant', 'grace', csv], ['tenant', 'list'], ['user', 'reset-password', '--tenant', 'grace', '--username', 'admin']]) {
      const run = await parish(argv, { db: false, env: { DATA_DIR: empty, NODE_ENV: 'test' } });
      expect(run.code, argv.join(' ')).toBe(1);
      expect(run.stderr).toBe(
        `Error: No Parish database in ${empty}. Set DATA_DIR to the data directory of the server (or DATABASE_URL to its PostgreSQL), ` +
          'or start the server once to create one.\n',
      );
    }
    expect(fs.readdirSync(empty)).toEqual([]);
    // Without DATA_DIR, the default (./data of the current folder) is said to be the default.
    // (A developer's own ./data is left alone.)
    if (!fs.existsSync(path.resolve('data'))) {
      const defaulted = await parish(['tenant', 'list'], { db: false, env: { NODE_ENV: 'test' } });
      expect(defaulted.stderr).toContain(`No Parish database in ${path.resolve('data')} (DATA_DIR is not set: ./data of the current folder)`);
      expect(fs.existsSync(path.resolve('data'))).toBe(false);
    }
  });

  it('an import while the server holds the database says so and what to do', async () => {
    const dir = fs.mkdtempSync(path.join(work, 'held-'));
    fs.mkdirSync(path.join(dir, 'pgdata'));
    fs.writeFileSync(path.join(dir, 'pgdata', 'PG_VERSION'), '17\n');
    // The vitest main process stands in for a running server: a live pid in the lock file.
    fs.writeFileSync(path.join(dir, 'parish.lock'), `${process.ppid}\nthe server (parish serve)\n`);
    const run = await parish(['import', 'contacts', '--tenant', 'grace', csv], { db: false, env: { DATA_DIR: dir, NODE_ENV: 'test' } });
    expect(run.code).toBe(1);
    expect(run.stderr).toContain(`Database: PGlite in ${dir}\n`);
    expect(run.stderr).toContain(`Error: The database in ${dir} is in use by another Parish process (pid ${process.ppid}, the server (parish serve))`);
    expect(run.stderr).toContain('Stop that process (Ctrl-C in its terminal, or kill the pid) and run this command again');
    expect(run.stderr).toContain('POST /api/crm/contacts/import');
    expect(fs.readFileSync(path.join(dir, 'parish.lock'), 'utf8')).toBe(`${process.ppid}\nthe server (parish serve)\n`);
  });
});
