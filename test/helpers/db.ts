import fs from 'node:fs';
import { inject } from 'vitest';
import { openDb, type AppDb } from '../../src/db/client.js';
import { adminQuery, testDatabaseName, withDatabase } from './global-setup.js';

/** A database of this test file's own: a copy of the migrated template, on PGlite or PostgreSQL. */
export async function createTestDb(): Promise<AppDb> {
  const url = process.env.DATABASE_URL;
  if (!url) {
    const dump = fs.readFileSync(inject('pgliteTemplate'));
    return openDb({ dataDir: '', memory: true, loadDataDir: new Blob([dump]) });
  }
  const template = inject('pgTemplate');
  const name = testDatabaseName(template);
  await createFromTemplate(url, name, template);
  const appDb = await openDb({ dataDir: '', databaseUrl: withDatabase(url, name), poolSize: 5 });
  return {
    ...appDb,
    close: async () => {
      await appDb.close();
      await adminQuery(url, `DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
    },
  };
}

/** Parallel copies of one template can collide ("source database is being accessed"): retry. */
async function createFromTemplate(url: string, name: string, template: string) {
  for (let attempt = 0; ; attempt++) {
    try {
      await adminQuery(url, `CREATE DATABASE ${name} TEMPLATE ${template}`);
      return;
    } catch (err) {
      if ((err as { code?: string }).code !== '55006' || attempt > 50) throw err;
      await new Promise((r) => setTimeout(r, 100 + Math.random() * 200));
    }
  }
}
