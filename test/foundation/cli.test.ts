import { spawn } from 'node:child_process';
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
function cli(...args: string[]): Promise<Run> {
  const env: NodeJS.ProcessEnv = { ...process.env, DATA_DIR: dataDir, NODE_ENV: 'development', LOG_LEVEL: 'silent' };
  delete env.DATABASE_URL;
  delete env.JWT_SECRET;
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, ['--import', 'tsx', 'src/cli.ts', ...args], { cwd: root, env });
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

describe('parish CLI', { timeout: 120_000 }, () => {
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
});
