import { parseArgs } from 'node:util';
import { ConfigError, loadConfig } from './config.js';
import { DatabaseLockedError, openDb } from './db/client.js';
import { migrate } from './db/migrate.js';
import { AppError } from './lib/errors.js';
import { DEMO_SLUG, seedDemoTenant } from './modules/tenants/demo-seed.js';
import { createTenant, syncSystemRoles, validateNewTenant, type NewTenant } from './modules/tenants/tenants.service.js';
import { serve } from './server.js';

const USAGE = `Usage: npm run parish -- <command>

Commands:
  serve                      migrate, then serve the API (npm start)
  migrate                    apply database migrations
  tenant create --slug SLUG --name NAME --admin-username USER --admin-password PASS [--admin-email EMAIL]
                             [--time-zone Africa/Kampala] [--currency UGX]
                             create a church with its categories, roles and admin user
  seed-demo                  create the demo tenant "${DEMO_SLUG}" and print its admin password
`;

class UsageError extends Error {}

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
  console.log(`Created tenant ${tenant.slug} (id ${tenant.id}) with admin user ${admin.username}.`);
}

async function main(argv: string[]): Promise<void> {
  const [command, ...rest] = argv;
  switch (command) {
    case 'serve':
      return serve(loadConfig());
    case 'migrate':
      await withDb(async () => {});
      console.log('Migrations applied.');
      return;
    case 'tenant':
      if (rest[0] !== 'create') throw new UsageError(`Unknown tenant command: ${rest[0] ?? '(none)'}`);
      return tenantCreate(rest.slice(1));
    case 'seed-demo': {
      const { password } = await withDb((appDb) => seedDemoTenant(appDb.db));
      console.log(`Created the demo tenant. Sign in with churchName "${DEMO_SLUG}", username "admin", password "${password}"`);
      return;
    }
    case undefined:
    case 'help':
    case '--help':
      console.log(USAGE);
      return;
    default:
      throw new UsageError(`Unknown command: ${command}`);
  }
}

main(process.argv.slice(2)).catch((err: unknown) => {
  if (err instanceof UsageError || (err as { code?: string }).code?.startsWith('ERR_PARSE_ARGS')) {
    console.error(`${(err as Error).message}\n\n${USAGE}`);
  } else if (err instanceof AppError || err instanceof ConfigError || err instanceof DatabaseLockedError) {
    console.error(`Error: ${err.message}`);
  } else {
    console.error(err);
  }
  process.exit(1);
});
