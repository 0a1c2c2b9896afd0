import closeWithGrace from 'close-with-grace';
import { buildApp } from './app.js';
import type { Config } from './config.js';
import { openDb } from './db/client.js';
import { migrate } from './db/migrate.js';
import { phases } from './lib/phases.js';
import { syncSystemRoles } from './modules/tenants/tenants.service.js';
import { DEMO_SLUG, seedDemoTenant } from './provisioning/demo-seed.js';

/**
 * Opens and migrates the database, seeds the demo tenant on a first start, listens, shuts down cleanly.
 * Each phase is one line on stdout with its time (src/lib/phases.ts).
 */
export async function serve(config: Config): Promise<void> {
  const phase = phases();
  const where = config.databaseUrl ? 'PostgreSQL' : `PGlite in ${config.dataDir}`;
  const appDb = await phase.run(`opening the database (${where})`, () => openDb({ ...config, holder: 'the server (parish serve)' }));
  await phase.run('migrating', async () => {
    const applied = await migrate(appDb);
    await syncSystemRoles(appDb.db);
    return applied;
  }, (applied) => (applied ? `${applied} migration${applied === 1 ? '' : 's'} applied` : 'up to date'));
  const app = await phase.run('loading the API', () => buildApp({ config, db: appDb.db, replicas: appDb.replicas }));

  closeWithGrace({ delay: 10_000 }, async ({ signal, err }) => {
    if (err) app.log.error({ err }, 'shutting down after an error');
    else app.log.info({ signal }, 'shutting down');
    await app.close();
    await appDb.close();
  });

  const isEmpty = (await appDb.db.query.tenants.findFirst()) === undefined;
  if (isEmpty && config.nodeEnv !== 'production') {
    const { password } = await phase.run(`seeding the demo tenant "${DEMO_SLUG}"`, () => seedDemoTenant(appDb.db));
    // Printed once, on the first start only: the password is stored only as a hash.
    process.stdout.write(
      `\nCreated the demo tenant. Sign in with churchName "${DEMO_SLUG}", username "admin", password "${password}"\n` +
        'This password is shown only once (a lost one: npm run parish -- user reset-password --tenant demo --username admin).\n\n',
    );
  }
  await app.listen({ port: config.port, host: config.host });
  app.worker.start();
  phase.done(`listening on http://${config.host}:${config.port}/api (docs: /api/docs, database: ${appDb.kind})`);
}
