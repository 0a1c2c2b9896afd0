import closeWithGrace from 'close-with-grace';
import { buildApp } from './app.js';
import type { Config } from './config.js';
import { openDb } from './db/client.js';
import { migrate } from './db/migrate.js';
import { syncSystemRoles } from './modules/tenants/tenants.service.js';
import { DEMO_SLUG, seedDemoTenant } from './provisioning/demo-seed.js';

/** Opens and migrates the database, seeds the demo tenant on a first start, listens, shuts down cleanly. */
export async function serve(config: Config): Promise<void> {
  const appDb = await openDb(config);
  await migrate(appDb);
  await syncSystemRoles(appDb.db);
  const app = await buildApp({ config, db: appDb.db, replicas: appDb.replicas });

  closeWithGrace({ delay: 10_000 }, async ({ signal, err }) => {
    if (err) app.log.error({ err }, 'shutting down after an error');
    else app.log.info({ signal }, 'shutting down');
    await app.close();
    await appDb.close();
  });

  const isEmpty = (await appDb.db.query.tenants.findFirst()) === undefined;
  if (isEmpty && config.nodeEnv !== 'production') {
    const { password } = await seedDemoTenant(appDb.db);
    // Printed once, on the first start only: the password is stored only as a hash.
    process.stdout.write(
      `\nCreated the demo tenant. Sign in with churchName "${DEMO_SLUG}", username "admin", password "${password}"\n` +
        'This password is shown only once.\n\n',
    );
  }
  await app.listen({ port: config.port, host: config.host });
  app.worker.start();
  app.log.info(`Parish API on http://${config.host}:${config.port}/api (docs: /api/docs, database: ${appDb.kind})`);
}
