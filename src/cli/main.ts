import { parseArgs } from 'node:util';
import { ConfigError, loadConfig } from '../config.js';
import { DatabaseLockedError, openDb, type Db } from '../db/client.js';
import { migrate } from '../db/migrate.js';
import { AppError } from '../lib/errors.js';
import { syncSystemRoles } from '../modules/tenants/tenants.service.js';
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
  seed-demo                  create the demo tenant "${DEMO_SLUG}" and print its admin password
${IMPORT_USAGE}
`;

export class UsageError extends Error {}

async function withDb<T>(fn: (db: Awaited<ReturnType<typeof openDb>>) => Promise<T>): Promise<T> {
  const config = loadConfig();
  const appDb = await openDb(config);
  try {
    await migrate(appDb);
    await syncSystemRoles(appDb.db);
    return await fn(appDb);
  } finally {
    await appDb.close();
  }
}

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

async function tenantCreate(args: string[]) {
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
  const { tenant, admin } = await withDb((appDb) => createTenant(appDb.db, input));
  process.stdout.write(`Created tenant ${tenant.slug} (id ${tenant.id}) with admin user ${admin.username}.\n`);
}

export interface CliOptions {
  io?: CliIo;
  /** A database already open and migrated (the tests'); otherwise the configured one is opened. */
  db?: Db;
}

async function main(argv: string[], io: CliIo, db?: Db): Promise<void> {
  const [command, ...rest] = argv;
  const print = (text: string) => io.stdout.write(`${text}\n`);
  switch (command) {
    case 'serve':
      return serve(loadConfig());
    case 'migrate':
      await withDb(async () => {});
      print('Migrations applied.');
      return;
    case 'tenant':
      if (rest[0] !== 'create') throw new UsageError(`Unknown tenant command: ${rest[0] ?? '(none)'}`);
      return tenantCreate(rest.slice(1));
    case 'seed-demo': {
      const { password } = await withDb((appDb) => seedDemoTenant(appDb.db));
      print(`Created the demo tenant. Sign in with churchName "${DEMO_SLUG}", username "admin", password "${password}"`);
      return;
    }
    case 'import': {
      // Arguments and the file are checked before the database is opened.
      const options = parseImportArgs(rest);
      await (db ? runImport(db, options, io) : withDb((appDb) => runImport(appDb.db, options, io)));
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
    await main(argv, io, options.db);
    return 0;
  } catch (err) {
    if (err instanceof UsageError || (err as { code?: string }).code?.startsWith('ERR_PARSE_ARGS')) {
      io.stderr.write(`${(err as Error).message}\n\n${USAGE}\n`);
    } else if (err instanceof AppError || err instanceof ConfigError || err instanceof DatabaseLockedError || err instanceof ImportError) {
      io.stderr.write(`Error: ${(err as Error).message}\n`);
    } else {
      io.stderr.write(`${(err as Error).stack ?? String(err)}\n`);
    }
    return 1;
  }
}
