/**
 * Issue 13's "an automation fires within 1 s of the commit that triggers it (p95)", measured:
 *
 *   DATABASE_URL=postgres://postgres@127.0.0.1:5432/<db> npx tsx bench/automation-latency.ts [samples]
 *
 * On a bench database (its manifest exists: `npm run bench` made it; its tenant's two seeded
 * automations are active), or else on a fresh database, migrated here, with a new tenant.
 * Runs the app in this process, drains the change queue the bench's write scenarios left (the bench
 * servers run no worker), starts the background worker (as `serve` does: it polls the change queue
 * every 250 ms), and for each sample writes one triggering change through
 * HTTP (app.inject) — alternately a Prayer request (→ a task) and a new contact's first visit (→ a
 * card in New people) — then polls the database every 5 ms until the automation's row exists. The
 * latency is from the write's response (its transaction has committed) to the poll that first sees
 * the automation's committed row: an upper bound within one poll interval. Prints p50/p95/max.
 * Writes 2 × samples/2 rows of each kind into the bench tenant (requests, contacts, records, tasks,
 * cards): harmless for the read scenarios.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { sql } from 'drizzle-orm';
import { buildApp } from '../src/app.js';
import { loadConfig } from '../src/config.js';
import { openDb } from '../src/db/client.js';
import { migrate } from '../src/db/migrate.js';
import { syncSystemRoles } from '../src/modules/tenants/tenants.service.js';
import { createTenant } from '../src/provisioning/create-tenant.js';

const databaseUrl = process.env.DATABASE_URL;
if (!databaseUrl) throw new Error('DATABASE_URL of the bench database is required');
const samples = Number(process.argv[2] ?? 40);
const dbName = new URL(databaseUrl).pathname.slice(1);
const manifestFile = path.join(os.tmpdir(), `parish-bench-pg-${dbName}-large.json`);
// Without a bench manifest: a fresh database, migrated here, with a new tenant (its automations active).
const fresh = !fs.existsSync(manifestFile);

const config = loadConfig({ ...process.env, NODE_ENV: 'test', LOG_LEVEL: 'silent', JWT_SECRET: 'automation-latency-secret-0123456789abcdef' });
const appDb = await openDb(config);
const app = await buildApp({ config, db: appDb.db, logger: false });
await app.ready();
const rows = async <T>(q: ReturnType<typeof sql>) => ((await appDb.db.execute(q)) as unknown as { rows: T[] }).rows;

const json = async (method: 'GET' | 'POST', url: string, token: string | undefined, payload?: unknown): Promise<any> => {
  const res = await app.inject({ method, url, payload: payload as never, headers: token ? { authorization: `Bearer ${token}` } : {} });
  if (res.statusCode >= 300) throw new Error(`${method} ${url}: ${res.statusCode} ${res.body}`);
  return res.json();
};

let login: { slug: string; username: string; password: string };
if (fresh) {
  await migrate(appDb);
  await syncSystemRoles(appDb.db);
  const slug = `latency-${Date.now().toString(36)}`;
  await createTenant(appDb.db, { slug, name: 'Latency Church', adminUsername: 'admin', adminPassword: 'latency-password-2026', adminEmail: `admin@${slug}.example.org` });
  login = { slug, username: 'admin', password: 'latency-password-2026' };
} else {
  const manifest = JSON.parse(fs.readFileSync(manifestFile, 'utf8')) as { slug: string; adminUsername: string; password: string };
  login = { slug: manifest.slug, username: manifest.adminUsername, password: manifest.password };
}
const signedIn = await json('POST', '/api/auth/login', undefined, { churchName: login.slug, username: login.username, password: login.password });
const token = signedIn.accessToken as string;
const t = Number((await rows<{ id: string }>(sql`select id from tenants where slug = ${login.slug}`))[0].id);
if (fresh) {
  const [fellowship] = await rows<{ id: string }>(sql`select id from group_categories where tenant_id = ${t} and name = 'Fellowship'`);
  const group = await json('POST', '/api/groups', token, { name: 'Latency Fellowship', categoryId: Number(fellowship.id) });
  await json('POST', '/api/attendance/sessions', token, { groupId: group.id, date: '2026-11-01' });
}
// Steady state first: the bench's servers run no worker, so its write scenarios leave their changes
// queued (tens of thousands); a running service would have handled them as they came.
const drainStarted = performance.now();
const drained = await app.worker.drain();
process.stdout.write(`${fresh ? 'fresh database' : 'bench database'}: drained ${drained.changes} queued changes and ${drained.jobs} jobs in ${((performance.now() - drainStarted) / 1000).toFixed(1)} s\n`);
app.worker.start();

// The tenant's latest group meeting: the first visits are recorded there.
const [meeting] = await rows<{ session_id: string }>(sql`select s.id as session_id from attendance_sessions s
  where s.tenant_id = ${t} and s.source = 'Group' order by s.date desc, s.id limit 1`);

async function until(check: () => Promise<boolean>, started: number): Promise<number> {
  for (;;) {
    if (await check()) return performance.now() - started;
    if (performance.now() - started > 30_000) throw new Error('no automation within 30 s');
    await new Promise((r) => setTimeout(r, 5));
  }
}
const exists = async (q: ReturnType<typeof sql>) => (await rows(q)).length > 0;

const prayer: number[] = [];
const firstVisit: number[] = [];
const run = Date.now().toString(36);
for (let i = 0; i < samples; i++) {
  if (i % 2 === 0) {
    const contact = await json('POST', '/api/crm/contacts', token, { category: 'Person', person: { firstName: 'Praying', lastName: `${run} ${i}` } });
    const contactId = contact.id as number;
    const request = await json('POST', '/api/crm/requests', token, { contactId, type: 'Prayer', description: `Automation latency ${run} ${i}` });
    const started = performance.now();
    prayer.push(await until(() => exists(sql`select 1 from tasks where tenant_id = ${t} and request_id = ${request.id}`), started));
  } else {
    const contact = await json('POST', '/api/crm/contacts', token, { category: 'Person', person: { firstName: 'Latency', lastName: `${run} ${i}` } });
    await json('POST', `/api/attendance/sessions/${meeting.session_id}/records`, token, { contactIds: [contact.id] });
    const started = performance.now();
    firstVisit.push(await until(() => exists(sql`select 1 from pipeline_cards where tenant_id = ${t} and contact_id = ${contact.id}`), started));
  }
}
await app.close();
await appDb.close();

const pct = (xs: number[], p: number) => [...xs].sort((a, b) => a - b)[Math.min(xs.length - 1, Math.ceil((p / 100) * xs.length) - 1)];
const line = (name: string, xs: number[]) =>
  `${name}: n=${xs.length} p50 ${pct(xs, 50).toFixed(0)} ms, p95 ${pct(xs, 95).toFixed(0)} ms, max ${Math.max(...xs).toFixed(0)} ms`;
const all = [...prayer, ...firstVisit];
process.stdout.write(`${line('Prayer request → task', prayer)}\n${line('first visit → New people card', firstVisit)}\n${line('all', all)}\n`);
process.stdout.write(`load average ${os.loadavg().map((l) => l.toFixed(1)).join(' / ')}\n`);
