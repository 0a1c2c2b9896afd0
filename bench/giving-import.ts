/**
 * Issue 14's "importing 10,000 giving rows < 3 s", measured on the bench tenant:
 *
 *   DATABASE_URL=postgres://postgres@127.0.0.1:5432/parish_bench \
 *     flock /tmp/parish-bench.lock npx tsx bench/giving-import.ts [--runs 3] [--rows 10000] [--chunk 10000] [--dry-run] [--keep] [--cpu-prof DIR]
 *
 * Needs a bench database and its manifest (`npm run bench -- --size large` made them). Runs the app
 * in this process (no worker) and, per run, posts `rows` giving rows of bench/gen-import-csv.ts's
 * giving mode (a bank / mobile-money statement: half matched by phone, three in ten by name, two in
 * ten matching nobody) as text/csv to POST /api/finance/contributions/import through app.inject, in
 * requests of `chunk` rows (--chunk 1000 is what `parish import giving` sends: one transaction per
 * 1,000 rows). The seconds are from the first request to the last response (parsing, matching,
 * the writes, the changes, the giving rollups at commit). The giving summary of December is
 * checked to grow by the imported total. Then the imported gifts are deleted in one statement
 * (timed: the rollups' delete triggers, "delete" below) with their changes and queue entries, and
 * the summary is checked to be back where it was, so the tenant is left as found (--keep keeps
 * them; --dry-run imports with dryRun and deletes nothing); the tables it touched are vacuumed after
 * the delete, so that each run starts as the first did. Prints each run and the median.
 */
import fs from 'node:fs';
import { Session } from 'node:inspector/promises';
import os from 'node:os';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { sql } from 'drizzle-orm';
import { buildApp } from '../src/app.js';
import { loadConfig } from '../src/config.js';
import { openDb } from '../src/db/client.js';
import { benchManifest, csvText, GIVING_HEADER, givingRows, loadGivingDonors } from './gen-import-csv.js';

const { values } = parseArgs({
  options: {
    runs: { type: 'string', default: '3' }, rows: { type: 'string', default: '10000' }, chunk: { type: 'string', default: '10000' },
    'dry-run': { type: 'boolean', default: false }, keep: { type: 'boolean', default: false }, 'cpu-prof': { type: 'string' },
  },
});
const runs = Number(values.runs);
const rowCount = Number(values.rows);
const chunk = Number(values.chunk);
const dryRun = values['dry-run']!;
const databaseUrl = process.env.DATABASE_URL;
const manifest = databaseUrl ? benchManifest(databaseUrl) : null;
if (!databaseUrl || !manifest) throw new Error('DATABASE_URL of a bench database with its manifest (npm run bench made it) is required');
if (![runs, rowCount, chunk].every((n) => Number.isInteger(n) && n > 0) || chunk > 10_000) throw new Error('--runs, --rows and --chunk (at most 10,000) are positive integers');

const config = loadConfig({ ...process.env, NODE_ENV: 'test', LOG_LEVEL: 'silent', JWT_SECRET: 'giving-import-bench-secret-0123456789abcdef' });
const appDb = await openDb(config);
const app = await buildApp({ config, db: appDb.db, logger: false });
await app.ready();
const rows = async <T>(q: ReturnType<typeof sql>) => ((await appDb.db.execute(q)) as unknown as { rows: T[] }).rows;

const login = await app.inject({ method: 'POST', url: '/api/auth/login', payload: { churchName: manifest.slug, username: manifest.adminUsername, password: manifest.password } });
if (login.statusCode !== 200) throw new Error(`login: ${login.statusCode} ${login.body}`);
const headers = { authorization: `Bearer ${login.json().accessToken as string}` };
const [{ id: tenantId }] = await rows<{ id: string }>(sql`select id from tenants where slug = ${manifest.slug}`);
const t = Number(tenantId);
const donors = await loadGivingDonors(databaseUrl, manifest.slug);

interface Totals { total: number; count: number }
async function december(): Promise<Totals> {
  const res = await app.inject({ method: 'GET', url: '/api/finance/summary?from=2025-12-01&to=2025-12-31&interval=month', headers });
  if (res.statusCode !== 200) throw new Error(`summary: ${res.statusCode} ${res.body}`);
  const { total, count } = res.json().totals as Totals;
  return { total, count };
}

// --cpu-prof DIR: a V8 CPU profile of each run's import requests only (DIR/import-<run>.cpuprofile).
const profiler = values['cpu-prof'] ? new Session() : undefined;
if (profiler) {
  fs.mkdirSync(values['cpu-prof']!, { recursive: true });
  profiler.connect();
  await profiler.post('Profiler.enable');
}

/** The tables an import and its delete leave dead rows in. */
const VACUUMED = ['contributions', 'contribution_lines', 'contribution_refunds', 'giving_donor_periods', 'giving_donor_masks', 'giving_days', 'changes', 'change_queue'];

const load = () => os.loadavg().map((l) => l.toFixed(2)).join(' ');
const importSeconds: number[] = [];
const deleteSeconds: number[] = [];
process.stdout.write(`giving import on ${manifest.slug}: ${runs} run(s) of ${rowCount} rows in requests of ${chunk}${dryRun ? ', dryRun' : ''}; load average ${load()}\n`);
for (let run = 1; run <= runs; run++) {
  const tag = `${Date.now().toString(36)}${run}`;
  const data = givingRows(rowCount, donors, tag);
  const bodies: string[] = [];
  for (let i = 0; i < data.length; i += chunk) bodies.push(csvText(GIVING_HEADER, data.slice(i, i + chunk)));
  const [{ c: lastContribution, x: lastChange }] = await rows<{ c: string; x: string }>(sql`
    select coalesce((select max(id) from contributions where tenant_id = ${t}), 0) as c, coalesce((select max(id) from changes where tenant_id = ${t}), 0) as x`);
  const before = await december();

  const counts = { created: 0, matched: 0, unmatched: 0, failed: 0, amount: 0 };
  if (profiler) await profiler.post('Profiler.start');
  const started = performance.now();
  for (const [b, body] of bodies.entries()) {
    const res = await app.inject({ method: 'POST', url: `/api/finance/contributions/import${dryRun ? '?dryRun=true' : ''}`, headers: { ...headers, 'content-type': 'text/csv' }, payload: body });
    if (res.statusCode !== 200) throw new Error(`import: ${res.statusCode} ${res.body.slice(0, 300)}`);
    const r = res.json() as { created: number; matched: number; unmatched: number; failed: number; rows: { status: string }[] };
    counts.created += r.created;
    counts.matched += r.matched;
    counts.unmatched += r.unmatched;
    counts.failed += r.failed;
    r.rows.forEach((row, i) => {
      if (row.status !== 'failed') counts.amount += Number(data[b * chunk + i][1]);
    });
  }
  const seconds = (performance.now() - started) / 1000;
  importSeconds.push(seconds);
  if (profiler) {
    const { profile } = await profiler.post('Profiler.stop');
    fs.writeFileSync(path.join(values['cpu-prof']!, `import-${run}.cpuprofile`), JSON.stringify(profile));
  }

  const after = await december();
  const expected = dryRun ? before : { total: before.total + counts.amount, count: before.count + rowCount - counts.failed };
  if (after.total !== expected.total || after.count !== expected.count) {
    throw new Error(`December summary after the import: ${JSON.stringify(after)}, expected ${JSON.stringify(expected)}`);
  }
  let line = `run ${run}: import ${seconds.toFixed(2)} s (${counts.created} created, ${counts.matched} matched, ${counts.unmatched} unmatched, ${counts.failed} failed)`;

  if (!dryRun && !values.keep) {
    // The run's gifts: ids past the last one before it, with this run's references.
    const deleteStarted = performance.now();
    await appDb.db.transaction(async (tx) => {
      await tx.execute(sql`delete from contributions where tenant_id = ${t} and id > ${lastContribution} and reference like ${`%-${tag}-%`}`);
    });
    const deleted = (performance.now() - deleteStarted) / 1000;
    deleteSeconds.push(deleted);
    await appDb.db.transaction(async (tx) => {
      await tx.execute(sql`delete from change_queue q using changes c where q.tenant_id = ${t} and c.tenant_id = ${t} and c.id > ${lastChange}
        and c.type = 'contribution.created' and c.data ? 'imported' and q.change_id = c.id`);
      await tx.execute(sql`delete from changes where tenant_id = ${t} and id > ${lastChange} and type = 'contribution.created' and data ? 'imported'`);
    });
    const restored = await december();
    if (restored.total !== before.total || restored.count !== before.count) {
      throw new Error(`December summary after deleting the import: ${JSON.stringify(restored)}, expected ${JSON.stringify(before)}`);
    }
    line += `; delete ${deleted.toFixed(2)} s`;
    // The run's dead rows out again (the next run would otherwise pay for them where autovacuum is off, as on the bench machine).
    for (const table of VACUUMED) await appDb.db.execute(sql.raw(`vacuum ${table}`));
  }
  process.stdout.write(`${line}; load average ${load()}\n`);
}
await app.close();
await appDb.close();

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor((xs.length - 1) / 2)];
process.stdout.write(`median: import ${median(importSeconds).toFixed(2)} s${deleteSeconds.length ? `, delete ${median(deleteSeconds).toFixed(2)} s` : ''} (${rowCount} rows)\n`);
