/**
 * Issue 17's fan-out figure: N changes (default 10,000) to W webhooks (default 3) delivered to a
 * loopback receiver, end to end through the worker (change feed → fan-out subscriber → delivery
 * jobs → signed POSTs). The receiver runs in its own process, dedupes by (webhook, change id) and
 * counts; the figure is distinct deliveries per second from the worker's start until the last one.
 *
 *   npx tsx bench/webhook-fanout.ts [--changes 10000] [--webhooks 3] [--workers 1]
 *     [--database-url postgres://postgres@127.0.0.1:5432/postgres]
 *
 * It makes (and drops afterwards) a scratch database `parish_fanout_<pid>` next to the given one.
 * `--workers N` runs N apps (each with its worker and its own pool) in this process.
 */
import { fork } from 'node:child_process';
import http from 'node:http';
import os from 'node:os';
import type { AddressInfo } from 'node:net';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import type { FastifyInstance } from 'fastify';
import { sql } from 'drizzle-orm';
import { buildApp } from '../src/app.js';
import { recordChanges } from '../src/changes/recorder.js';
import { loadConfig } from '../src/config.js';
import { adminQuery, withDatabase } from '../src/db/admin.js';
import { openDb, withTenant, type AppDb } from '../src/db/client.js';
import { migrate } from '../src/db/migrate.js';
import { MemoryMailer } from '../src/lib/mailer.js';
import { insertWebhook } from '../src/modules/notifications/webhooks.repository.js';
import { encryptSecret, newWebhookSecret } from '../src/modules/notifications/webhooks.security.js';
import { createTenant } from '../src/provisioning/create-tenant.js';

/** The receiver process: answers 200 at once (keep-alive), reports distinct deliveries. */
function receiver() {
  const seen = new Set<string>();
  let total = 0;
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      total++;
      seen.add(`${req.url}:${(JSON.parse(Buffer.concat(chunks).toString('utf8')) as { id: number }).id}`);
      res.end('ok');
    });
  });
  server.keepAliveTimeout = 30_000;
  server.listen(0, '127.0.0.1', () => process.send!({ port: (server.address() as AddressInfo).port }));
  setInterval(() => process.send!({ distinct: seen.size, total }), 50);
  process.on('disconnect', () => process.exit(0));
}

async function main() {
  const { values } = parseArgs({
    options: {
      changes: { type: 'string', default: '10000' },
      webhooks: { type: 'string', default: '3' },
      workers: { type: 'string', default: '1' },
      'database-url': { type: 'string', default: process.env.DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres' },
    },
  });
  const changes = Number(values.changes);
  const webhooks = Number(values.webhooks);
  const workers = Number(values.workers);
  const expected = changes * webhooks;
  const baseUrl = values['database-url']!;
  const name = `parish_fanout_${process.pid}`;

  const child = fork(fileURLToPath(import.meta.url), ['--receiver'], { execArgv: process.execArgv });
  let counts = { distinct: 0, total: 0 };
  const port = await new Promise<number>((resolve) => {
    child.on('message', (m: { port?: number; distinct?: number; total?: number }) => {
      if (m.port) resolve(m.port);
      else counts = m as typeof counts;
    });
  });

  await adminQuery(baseUrl, `DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
  await adminQuery(baseUrl, `CREATE DATABASE ${name}`);
  const config = loadConfig({ NODE_ENV: 'development', JWT_SECRET: 'bench-secret-that-is-long-enough-for-hs256-0', DATA_DIR: '/nonexistent', LOG_LEVEL: 'warn' });
  const dbs: AppDb[] = [];
  const apps: FastifyInstance[] = [];
  try {
    for (let i = 0; i < workers; i++) {
      const appDb = await openDb({ dataDir: '', databaseUrl: withDatabase(baseUrl, name), poolSize: 10 });
      if (i === 0) await migrate(appDb);
      dbs.push(appDb);
      const app = await buildApp({ config, db: appDb.db, mailer: new MemoryMailer(), logger: false });
      await app.ready();
      apps.push(app);
    }
    const db = dbs[0].db;
    const { tenant, admin } = await createTenant(db, { slug: 'fanout', name: 'Fan-out Church', adminUsername: 'admin', adminPassword: 'bench-password-123' });
    await withTenant(db, tenant.id, async (tx) => {
      for (let w = 0; w < webhooks; w++) {
        await insertWebhook(tx, tenant.id, { url: `http://127.0.0.1:${port}/hook/${w}`, events: ['*'], description: null, isActive: true, secretEncrypted: encryptSecret(newWebhookSecret(), config.jwtSecret), ownerUserId: admin.id });
      }
    });
    for (let start = 0; start < changes; start += 1000) {
      const items = Array.from({ length: Math.min(1000, changes - start) }, (_, i) => ({ type: 'contact.updated' as const, entityId: start + i + 1, data: { contactId: start + i + 1 } }));
      await withTenant(db, tenant.id, (tx) => recordChanges(tx, { tenantId: tenant.id, userId: admin.id }, items));
    }
    const load = os.loadavg().map((l) => l.toFixed(1)).join(' / ');
    console.log(`${changes} changes × ${webhooks} webhooks = ${expected} deliveries; ${workers} worker(s); load ${load}`);

    if (process.env.FANOUT_PHASES) {
      const { createWorker } = await import('../src/jobs/worker.js');
      const { notificationsModule } = await import('../src/modules/notifications/notifications.module.js');
      const w = createWorker({ db, mailer: new MemoryMailer(), config, log: apps[0].log, subscribers: notificationsModule.subscribers!, jobs: {}, schedules: [] });
      const t0 = Date.now();
      await w.drain();
      console.log(`dispatch only: ${Date.now() - t0} ms`);
    }
    const started = Date.now();
    let fannedOutAt = 0;
    for (const app of apps) app.worker.start();
    while (counts.distinct < expected) {
      await new Promise((r) => setTimeout(r, 50));
      if (!fannedOutAt) {
        const queued = ((await db.execute(sql`select count(*)::int as n from change_queue`)) as unknown as { rows: { n: number }[] }).rows[0].n;
        if (queued === 0) fannedOutAt = Date.now();
      }
      if (Date.now() - started > 600_000) throw new Error(`timed out at ${counts.distinct} of ${expected}`);
    }
    const seconds = (Date.now() - started) / 1000;
    await new Promise((r) => setTimeout(r, 300));
    console.log(`fan-out (change queue empty): ${((fannedOutAt - started) / 1000).toFixed(1)} s`);
    console.log(`delivered: ${counts.distinct} distinct (${counts.total} received) in ${seconds.toFixed(1)} s = ${Math.round(expected / seconds)} deliveries/s`);
    console.log(`load at the end ${os.loadavg().map((l) => l.toFixed(1)).join(' / ')}`);
  } finally {
    for (const app of apps) await app.worker.stop();
    for (const app of apps) await app.close();
    for (const appDb of dbs) await appDb.close();
    await adminQuery(baseUrl, `DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
    child.kill();
  }
}

if (process.argv[2] === '--receiver') receiver();
else await main();
