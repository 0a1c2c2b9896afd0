import { spawn, type ChildProcess } from 'node:child_process';
import net from 'node:net';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { openDb } from '../../src/db/client.js';
import { users } from '../../src/db/schema/index.js';
import { verifyPassword } from '../../src/lib/passwords.js';

const root = path.resolve(import.meta.dirname, '../..');
const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'parish-cli-'));
afterAll(() => fs.rmSync(dataDir, { recursive: true, force: true }));

interface Run {
  code: number | null;
  stdout: string;
  stderr: string;
}

/** Runs the CLI as `npm run parish -- ...` does, on an embedded database in a temp DATA_DIR. */
function cliEnv(extra: NodeJS.ProcessEnv = {}): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = { ...process.env, DATA_DIR: dataDir, NODE_ENV: 'development', LOG_LEVEL: 'silent', ...extra };
  delete env.DATABASE_URL;
  delete env.JWT_SECRET;
  return env;
}

function cli(...args: string[]): Promise<Run> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, ['--import', 'tsx', 'src/cli.ts', ...args], { cwd: root, env: cliEnv() });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d) => (stdout += d));
    child.stderr.on('data', (d) => (stderr += d));
    child.on('error', reject);
    child.on('close', (code) => resolve({ code, stdout, stderr }));
  });
}

async function adminHash(slug: string): Promise<string | null> {
  const appDb = await openDb({ dataDir });
  try {
    const { tenants } = await import('../../src/db/schema/index.js');
    const { eq } = await import('drizzle-orm');
    const [row] = await appDb.db.select({ hash: users.passwordHash }).from(users).innerJoin(tenants, eq(tenants.id, users.tenantId)).where(eq(tenants.slug, slug));
    return row?.hash ?? null;
  } finally {
    await appDb.close();
  }
}

describe('parish CLI', { timeout: 240_000 }, () => {
  it('bad arguments fail fast with a clear message and a non-zero exit', async () => {
    const base = ['tenant', 'create', '--name', 'Grace Church', '--admin-username', 'admin'];
    const [badSlug, weak, missing, unknownOption, unknownCommand, badEmail, help] = await Promise.all([
      cli(...base, '--slug', 'Bad Slug!', '--admin-password', 'long enough pw'),
      cli(...base, '--slug', 'grace', '--admin-password', 'short'),
      cli('tenant', 'create', '--slug', 'grace', '--name', 'Grace Church', '--admin-password', 'long enough pw'),
      cli(...base, '--slug', 'grace', '--admin-password', 'long enough pw', '--colour', 'blue'),
      cli('frobnicate'),
      cli(...base, '--slug', 'grace', '--admin-password', 'long enough pw', '--admin-email', 'nope'),
      cli('help'),
    ]);
    expect(help.code).toBe(0);
    expect(help.stdout).toContain('tenant create --slug SLUG');
    expect(badSlug.code).not.toBe(0);
    expect(badSlug.stderr).toContain('slug must be 2–63 lowercase letters, digits or dashes');
    expect(weak.code).not.toBe(0);
    expect(weak.stderr).toContain('admin password must be 8–256 characters');
    expect(missing.code).not.toBe(0);
    expect(missing.stderr).toContain('tenant create needs --admin-username');
    expect(missing.stderr).toContain('Usage: npm run parish');
    expect(unknownOption.code).not.toBe(0);
    expect(unknownOption.stderr).toMatch(/Unknown option '--colour'/);
    expect(unknownCommand.code).not.toBe(0);
    expect(unknownCommand.stderr).toContain('Unknown command: frobnicate');
    expect(badEmail.code).not.toBe(0);
    expect(badEmail.stderr).toContain('admin email must be an email address');
    // Nothing was created: validation ran before the database was opened.
    expect(fs.existsSync(path.join(dataDir, 'pgdata'))).toBe(false);
  });

  it('creates a tenant (values may begin with "-"), refuses the same slug again', async () => {
    const created = await cli('tenant', 'create', '--slug=grace', '--name=Grace Church', '--admin-username=admin', '--admin-password=-secret-123', '--admin-email', 'admin@grace.example.org');
    expect(created.stderr).toBe('');
    expect(created.code).toBe(0);
    expect(created.stdout).toMatch(/Created tenant grace \(id \d+\) with admin user admin\./);
    expect(fs.readFileSync(path.join(dataDir, 'jwt-secret'), 'utf8').length).toBeGreaterThanOrEqual(32);

    // The space form with a dash value parses (else parseArgs would call it ambiguous) and reaches
    // the duplicate check.
    const again = await cli('tenant', 'create', '--slug', 'grace', '--name', 'Other', '--admin-username', 'boss', '--admin-password', '-other-secret');
    expect(again.code).not.toBe(0);
    expect(again.stderr).toContain('A tenant with slug grace already exists');
    expect(again.stderr).not.toContain('ambiguous');

    expect(await verifyPassword(await adminHash('grace'), '-secret-123')).toBe(true);
    // The lock was released by every run.
    expect(fs.existsSync(path.join(dataDir, 'parish.lock'))).toBe(false);
  });

  it('serve survives a kill -9 (no data lost, stale lock taken over) and stops cleanly on SIGTERM', async () => {
    const port = await freePort();
    const login = () =>
      fetch(`http://127.0.0.1:${port}/api/auth/login`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ churchName: 'grace', username: 'admin', password: '-secret-123' }),
      });
    const first = await startServer(port);
    expect((await login()).status).toBe(200);
    first.kill('SIGKILL');
    await new Promise((r) => first.once('exit', r));
    expect(fs.existsSync(path.join(dataDir, 'parish.lock'))).toBe(true);

    const second = await startServer(port);
    expect((await login()).status).toBe(200);
    // A second process on the same data directory is refused with a clear message.
    const intruder = await cli('migrate');
    expect(intruder.code).not.toBe(0);
    expect(intruder.stderr).toContain(`in use by another Parish process (pid ${second.pid}, the server (parish serve))`);
    expect(intruder.stderr).toContain('Stop that process');
    expect(intruder.stderr).not.toMatch(/\n\s+at /);
    second.kill('SIGTERM');
    const code = await new Promise((r) => second.once('exit', r));
    expect(code).toBe(0);
    expect(fs.existsSync(path.join(dataDir, 'parish.lock'))).toBe(false);
  });
});

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const srv = net.createServer();
    srv.once('error', reject);
    srv.listen(0, '127.0.0.1', () => {
      const { port } = srv.address() as net.AddressInfo;
      srv.close(() => resolve(port));
    });
  });
}

/** Starts `serve` and resolves once /api/health answers. */
async function startServer(port: number): Promise<ChildProcess> {
  const child = spawn(process.execPath, ['--import', 'tsx', 'src/cli.ts', 'serve'], { cwd: root, env: cliEnv({ PORT: String(port), HOST: '127.0.0.1' }) });
  let output = '';
  child.stdout!.on('data', (d) => (output += d));
  child.stderr!.on('data', (d) => (output += d));
  const deadline = Date.now() + 90_000;
  while (Date.now() < deadline) {
    if (child.exitCode !== null) throw new Error(`serve exited with ${child.exitCode}: ${output}`);
    try {
      const res = await fetch(`http://127.0.0.1:${port}/api/health`);
      if (res.status === 200) return child;
    } catch {
      // not listening yet
    }
    await new Promise((r) => setTimeout(r, 250));
  }
  child.kill('SIGKILL');
  throw new Error(`serve did not start: ${output}`);
}
