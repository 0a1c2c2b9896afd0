import { parseArgs } from 'node:util';
import fs from 'node:fs';
import path from 'node:path';
import { ConfigError, dataDirOf, loadConfig, type Config } from '../config.js';
import { DatabaseLockedError, openDb, type Db } from '../db/client.js';
import { migrate } from '../db/migrate.js';
import { AppError } from '../lib/errors.js';
import { findTenantBySlug } from '../modules/tenants/tenants.repository.js';
import { listTenants, syncSystemRoles } from '../modules/tenants/tenants.service.js';
import { resetPasswordByOperator } from '../modules/users/users.service.js';
import { createTenant, validateNewTenant, type NewTenant } from '../provisioning/create-tenant.js';
import { DEMO_SLUG, seedDemoTenant } from '../provisioning/demo-seed.js';
import { serve } from '../server.js';
import { IMPORT_USAGE, ImportError, parseImportArgs, runImport, type CliIo } from './import.js';

const USAGE = `Usage: npm run parish -- <command>

Commands:
  serve                      migrate, then serve the API (npm start)
  migrate                    apply database migrations
  tenant create --slug SLUG --name NAME --admin-username USER --admin-password PASS [--admin-email EMAIL]
                             [--time-zone Africa/Kampala] [--currency UGX]
                             create a church with its categories, roles and admin user
  tenant list                the churches: slug (the churchName of a login) and name
  user reset-password --tenant SLUG --username NAME
                             give an account a new random password (printed once) and sign it out everywhere
  seed-demo                  create the demo tenant "${DEMO_SLUG}" and print its admin password
${IMPORT_USAGE}
`;

export class UsageError extends Error {}

/**
 * Opens the configured database for one command, migrated. A command that works on existing data
 * (`existing`: import, tenant list, user reset-password) refuses an embedded data directory that holds
 * no database yet (else a mistyped or missing DATA_DIR would spend a minute creating an empty one
 * and then report an unknown tenant), and says on stderr which database it opened.
 */
async function withDb<T>(command: string, io: CliIo, env: NodeJS.ProcessEnv, fn: (db: Awaited<ReturnType<typeof openDb>>) => Promise<T>, existing = false): Promise<T> {
  // Checked before loadConfig, which keeps a generated development secret in the data directory.
  if (existing && !env.DATABASE_URL) {
    const dataDir = dataDirOf(env);
    if (!fs.existsSync(path.join(dataDir, 'pgdata', 'PG_VERSION'))) {
      throw new CliError(
        `No Parish database in ${dataDir}${env.DATA_DIR ? '' : ' (DATA_DIR is not set: ./data of the current folder)'}. ` +
          'Set DATA_DIR to the data directory of the server (or DATABASE_URL to its PostgreSQL), or start the server once to create one.',
      );
    }
  }
  const config = loadConfig(env);
  if (existing) io.stderr.write(`Database: ${describeDatabase(config)}\n`);
  const appDb = await openDb({ ...config, holder: `parish ${command}` });
  try {
    await migrate(appDb);
    await syncSystemRoles(appDb.db);
    return await fn(appDb);
  } finally {
    await appDb.close();
  }
}

/** Where a command's data is, without credentials. */
function describeDatabase(config: Config): string {
  if (!config.databaseUrl) return `PGlite in ${config.dataDir}`;
  const url = new URL(config.databaseUrl);
  return `PostgreSQL ${url.hostname}${url.port ? `:${url.port}` : ''}${url.pathname}`;
}

/** A failure reported as one line: a user's mistake or a state the user must change, not a bug. */
export class CliError extends Error {}

const TENANT_OPTIONS = ['slug', 'name', 'admin-username', 'admin-password', 'admin-email', 'time-zone', 'currency'] as const;

/**
 * `--opt value` becomes `--opt=value` for our options, so a value may begin with '-' (a password
 * like "-secret-123"); parseArgs alone refuses that form as ambiguous.
 */
function joinOptionValues(args: string[], names: readonly string[]): string[] {
  const isOption = (arg: string) => names.some((n) => arg === `--${n}` || arg.startsWith(`--${n}=`));
  const out: string[] = [];
  for (let i = 0; i < args.length; i++) {
    const arg = args[i];
    const next = args[i + 1];
    if (names.some((n) => arg === `--${n}`) && next !== undefined && !isOption(next)) {
      out.push(`${arg}=${next}`);
      i++;
    } else {
      out.push(arg);
    }
  }
  return out;
}

async function tenantCreate(args: string[], io: CliIo, env: NodeJS.ProcessEnv) {
  const { values } = parseArgs({
    args: joinOptionValues(args, TENANT_OPTIONS),
    strict: true,
    options: Object.fromEntries(TENANT_OPTIONS.map((o) => [o, { type: 'string' as const }])),
  });
  for (const required of ['slug', 'name', 'admin-username', 'admin-password'] as const) {
    if (!values[required]) throw new UsageError(`tenant create needs --${required}`);
  }
  const input: NewTenant = {
    slug: values.slug as string,
    name: values.name as string,
    adminUsername: values['admin-username'] as string,
    adminPassword: values['admin-password'] as string,
    adminEmail: values['admin-email'] as string | undefined,
    timeZone: values['time-zone'] as string | undefined,
    currency: values['currency'] as string | undefined,
  };
  // Bad arguments fail at once, before the database is opened and migrated.
  validateNewTenant(input);
  const { tenant, admin } = await withDb('tenant create', io, env, (appDb) => createTenant(appDb.db, input));
  io.stdout.write(`Created tenant ${tenant.slug} (id ${tenant.id}) with admin user ${admin.username}.\n`);
}

async function tenantList(db: Db, io: CliIo) {
  const rows = [];
  for (let page = 1; ; page++) {
    const result = await listTenants(db, { page, limit: 100 });
    rows.push(...result.data);
    if (rows.length >= result.total || result.data.length === 0) break;
  }
  if (rows.length === 0) {
    io.stdout.write('No tenants yet (npm run parish -- tenant create …, or start the server once for the demo).\n');
    return;
  }
  const table = [['SLUG', 'NAME'], ...rows.map((t) => [t.slug, t.name])];
  const widths = table[0].map((_, i) => Math.max(...table.map((r) => r[i].length)));
  for (const row of table) io.stdout.write(`${row.map((cell, i) => cell.padEnd(widths[i])).join('  ').trimEnd()}\n`);
}

async function userResetPassword(args: string[], io: CliIo, env: NodeJS.ProcessEnv, db?: Db) {
  const { values } = parseArgs({ args: joinOptionValues(args, ['tenant', 'username']), strict: true, options: { tenant: { type: 'string' }, username: { type: 'string' } } });
  if (!values.tenant || !values.username) throw new UsageError('user reset-password needs --tenant SLUG and --username NAME');
  const reset = async (appDb: Db) => {
    const tenant = await findTenantBySlug(appDb, values.tenant as string);
    if (!tenant) throw new CliError(`No tenant with slug ${values.tenant} (npm run parish -- tenant list)`);
    return { tenant, ...(await resetPasswordByOperator(appDb, tenant.id, values.username as string)) };
  };
  const { tenant, username, password } = await (db ? reset(db) : withDb('user reset-password', io, env, (appDb) => reset(appDb.db), true));
  io.stdout.write(
    `New password for ${username} of ${tenant.slug}: ${password}\n` +
      'It is shown only this once; every session of the account was signed out.\n',
  );
}

export interface CliOptions {
  io?: CliIo;
  /** A database already open and migrated (the tests'); otherwise the configured one is opened. */
  db?: Db;
  /** The environment the configuration is read from (default process.env). */
  env?: NodeJS.ProcessEnv;
}

/** Resolves to the exit status when it is not 0 without an error (an import with failed rows). */
async function main(argv: string[], io: CliIo, env: NodeJS.ProcessEnv, db?: Db): Promise<number | void> {
  const [command, ...rest] = argv;
  const print = (text: string) => io.stdout.write(`${text}\n`);
  switch (command) {
    case 'serve':
      return serve(loadConfig(env));
    case 'migrate':
      await withDb('migrate', io, env, async () => {});
      print('Migrations applied.');
      return;
    case 'tenant':
      if (rest[0] === 'create') return tenantCreate(rest.slice(1), io, env);
      if (rest[0] === 'list' && rest.length === 1) return db ? tenantList(db, io) : withDb('tenant list', io, env, (appDb) => tenantList(appDb.db, io), true);
      throw new UsageError(`Unknown tenant command: ${rest.join(' ') || '(none)'}`);
    case 'user':
      if (rest[0] === 'reset-password') return userResetPassword(rest.slice(1), io, env, db);
      throw new UsageError(`Unknown user command: ${rest[0] ?? '(none)'}`);
    case 'seed-demo': {
      const { password } = await withDb('seed-demo', io, env, (appDb) => seedDemoTenant(appDb.db));
      print(`Created the demo tenant. Sign in with churchName "${DEMO_SLUG}", username "admin", password "${password}"`);
      return;
    }
    case 'import': {
      // Arguments and the file are checked before the database is opened.
      const options = parseImportArgs(rest);
      const summary = await (db ? runImport(db, options, io) : withDb('import', io, env, (appDb) => runImport(appDb.db, options, io), true));
      if (summary.failed) {
        // The other rows were imported; the exit status tells a script that some were not.
        io.stderr.write(`${summary.failed} row${summary.failed === 1 ? '' : 's'} failed: fix ${summary.errorsFile} and import it (exit status 1)\n`);
        return 1;
      }
      return;
    }
    case undefined:
    case 'help':
    case '--help':
      print(USAGE);
      return;
    default:
      throw new UsageError(`Unknown command: ${command}`);
  }
}

/** Runs one CLI command; resolves to the exit code (errors are printed to stderr, as one line when they are the user's). */
export async function runCli(argv: string[], options: CliOptions = {}): Promise<number> {
  const io = options.io ?? { stdout: process.stdout, stderr: process.stderr };
  try {
    return (await main(argv, io, options.env ?? process.env, options.db)) ?? 0;
  } catch (err) {
    if (err instanceof UsageError || (err as { code?: string }).code?.startsWith('ERR_PARSE_ARGS')) {
      io.stderr.write(`${(err as Error).message}\n\n${USAGE}\n`);
    } else if (err instanceof DatabaseLockedError) {
      io.stderr.write(`Error: ${err.message}\n${lockedAdvice(argv[0])}\n`);
    } else if (err instanceof AppError || err instanceof ConfigError || err instanceof CliError || err instanceof ImportError) {
      io.stderr.write(`Error: ${(err as Error).message}\n`);
    } else {
      io.stderr.write(`${(err as Error).stack ?? String(err)}\n`);
    }
    return 1;
  }
}

/** What to do when a running server holds the embedded database (PGlite serves one process). */
function lockedAdvice(command: string | undefined): string {
  const stop = 'Stop that process (Ctrl-C in its terminal, or kill the pid) and run this command again';
  if (command === 'import') {
    return `${stop}; or, with the server running, import over HTTP: POST /api/crm/contacts/import, ` +
      '/api/finance/contributions/import or /api/groups/import (README, "Migration in").';
  }
  return `${stop}.`;
}
