/**
 * `npm run bench -- [options]`: generates a data set, starts the service and the raw ceiling in a
 * child process, loads both with autocannon and writes bench/results/<date>-<size>.md.
 * See bench/README.md.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { sql } from 'drizzle-orm';
import { prepareDatabase, dropDatabase } from './database.js';
import { measureImport, measureLogin } from './extras.js';
import { captureAuth, login, measureScenario, type RunSettings, type ScenarioResult } from './measure.js';
import type { GrowthFigures } from './growth.js';
import { renderReport, type ExplainedStatement, type Report } from './report.js';
import { MODULE_SCENARIOS, SCENARIOS } from './scenarios.js';
import { startServer } from './server-process.js';
import { isSizeName } from './sizes.js';

const MODULES = MODULE_SCENARIOS.map((s) => s.id);
const ALL = ['1', '2a', '2b', '3', '4', '5', '6', '7', '8', '9', '10', '11', '12', ...MODULES];
const GROWTH = ['1', '2a', '2b', '4', '5'];

const { values: args } = parseArgs({
  options: {
    size: { type: 'string', default: 'small' },
    'database-url': { type: 'string' },
    pglite: { type: 'boolean', default: false },
    tsx: { type: 'boolean', default: false },
    'cpu-prof': { type: 'boolean', default: false },
    'other-tenants': { type: 'string', default: '20' },
    duration: { type: 'string', default: '10' },
    warmup: { type: 'string', default: '3' },
    reps: { type: 'string', default: '3' },
    connections: { type: 'string', default: '10' },
    scenarios: { type: 'string', default: 'all' },
    imports: { type: 'string', default: '5' },
    reuse: { type: 'boolean', default: false },
    'skip-vacuum': { type: 'boolean', default: false },
    drop: { type: 'boolean', default: false },
    'generate-only': { type: 'boolean', default: false },
    out: { type: 'string' },
    label: { type: 'string' },
    'without-change-recording': { type: 'boolean', default: false },
    'without-worker': { type: 'boolean', default: false },
    latency: { type: 'string', default: '5' },
    help: { type: 'boolean', default: false },
  },
});

const log = (m: string) => process.stderr.write(`${new Date().toISOString().slice(11, 19)} ${m}\n`);

function databaseUrl(): string | undefined {
  if (args.pglite) return undefined;
  if (args['database-url']) return args['database-url'];
  // The bench drops and recreates its database: never the one DATABASE_URL names, a sibling of it.
  const u = new URL(process.env.DATABASE_URL || 'postgres://postgres@127.0.0.1:5432/postgres');
  u.pathname = '/parish_bench';
  return u.toString();
}

function selectedScenarios(): Set<string> {
  const raw = args.scenarios!;
  if (raw === 'all') return new Set(ALL);
  if (raw === 'growth') return new Set(GROWTH);
  if (raw === 'modules') return new Set(MODULES);
  const ids = raw.split(',').map((s) => s.trim());
  // "2" means both searches.
  return new Set(ids.flatMap((id) => (id === '2' ? ['2a', '2b'] : [id])));
}

async function main() {
  if (args.help) {
    process.stdout.write(fs.readFileSync(fileURLToPath(new URL('./README.md', import.meta.url)), 'utf8'));
    return;
  }
  const size = args.size!;
  if (!isSizeName(size)) throw new Error(`--size must be toy, small, large or huge (got ${size})`);
  const settings: RunSettings = { duration: Number(args.duration), warmup: Number(args.warmup), reps: Number(args.reps), connections: Number(args.connections), latency: Number(args.latency) };
  const url = databaseUrl();
  const dataDir = path.join(os.tmpdir(), 'parish-bench-pglite');
  const otherTenants = Number(args['other-tenants']);
  log(`preparing the ${size} data set on ${url ? new URL(url).pathname.slice(1) + ' (PostgreSQL)' : 'PGlite ' + dataDir}`);
  const { appDb, dataset, loadSeconds } = await prepareDatabase({ databaseUrl: url, dataDir, size, otherTenants, reuse: args.reuse!, skipVacuum: args['skip-vacuum'], log });
  if (loadSeconds !== null) log(`loaded in ${loadSeconds.toFixed(1)} s`);
  const version = ((await appDb.db.execute(sql`select version() as v`)) as unknown as { rows: { v: string }[] }).rows[0].v;
  const database = url ? version.split(' on ')[0] : `PGlite (${version.split(' on ')[0]})`;
  await appDb.close();
  if (args['generate-only']) return;

  const chosen = selectedScenarios();
  const cpuProfDir = args['cpu-prof'] ? fileURLToPath(new URL('./.build/profiles', import.meta.url)) : undefined;
  const withoutChangeRecording = args['without-change-recording']!;
  const worker = !args['without-worker'];
  const server = await startServer({ databaseUrl: url, dataDir, tsx: args.tsx, cpuProfDir, withoutChangeRecording, worker });
  const report: Report = {
    date: new Date().toISOString().slice(0, 10), dataset, database, loadSeconds, otherTenants: dataset.otherTenants, settings,
    runtime:
      (args.tsx ? 'node --import tsx (--tsx)' : 'node on an esbuild bundle of the server (scripts/build.mjs, as `npm start` runs it)') +
      (withoutChangeRecording ? '; **change recording OFF** (--without-change-recording: recordChanges returns at once, issue 11\'s A/B)' : '') +
      (worker ? '; background worker on (as src/server.ts runs it; paused while a scenario\'s SQL is captured)' : '; **background worker OFF** (--without-worker: queued changes are not dispatched)'),
    rss: { idle: 0, idleAfter: 0, maxUnderLoad: 0 }, scenarios: [], plans: {},
    loadAverage: { start: os.loadavg(), end: [] },
  };
  // One failing step (a scenario, a plan, the login or import measure) is noted in the report; the
  // others' figures are still written.
  const step = async (what: string, work: () => Promise<void>) => {
    try {
      await work();
    } catch (err) {
      const message = `${what}: ${(err as Error).message}`;
      log(`  failed: ${message}`);
      report.errors!.push(message);
    }
  };
  report.errors = [];
  try {
    const tokens = await login(server, dataset);
    report.rss.idle = await server.call<number>('gc');
    const auth = await captureAuth(server, tokens.admin);
    log(`auth hook statements (left out of the raw ceiling): ${auth.statements.length}`);
    for (const scenario of [...SCENARIOS, ...MODULE_SCENARIOS].filter((s) => chosen.has(s.id))) {
      log(`scenario ${scenario.id}: ${scenario.title}`);
      if (scenario.id === 'a4' && server.kind === 'postgres') await server.call('checkin-reset', { tenantId: dataset.tenantId, sessionId: dataset.checkinSessionId });
      const result: ScenarioResult = await measureScenario(server, dataset, scenario, settings, log).catch((err: Error) => ({ scenario, skipped: err.message }));
      if (result.skipped) log(`  skipped: ${result.skipped}`);
      report.scenarios.push(result);
      report.rss.maxUnderLoad = Math.max(report.rss.maxUnderLoad, result.maxRss ?? 0);
    }
    if (server.kind === 'postgres') {
      for (const s of report.scenarios.filter((s) => s.scenario.kind === 'read' && s.sql?.length)) {
        await step(`EXPLAIN of scenario ${s.scenario.id}`, async () => {
          report.plans[s.scenario.id] = await server.call<ExplainedStatement[]>('explain', { name: s.scenario.id, tenantId: dataset.tenantId });
        });
      }
    }
    if (chosen.has('11')) {
      log('scenario 11: login');
      await step('scenario 11 (login)', async () => {
        report.login = await measureLogin(server, dataset, await login(server, dataset), settings);
        report.rss.maxUnderLoad = Math.max(report.rss.maxUnderLoad, report.login.maxRss);
      });
    }
    if (chosen.has('12')) {
      log('scenario 12: import');
      await step('scenario 12 (import)', async () => {
        report.imports = await measureImport(server, await login(server, dataset), Number(args.imports));
      });
    }
    await step('queue after the run', async () => {
      report.queueAfter = await server.call<{ changes: number; jobs: number }>('queue');
    });
    report.rss.idleAfter = await server.call<number>('gc');
    report.loadAverage!.end = os.loadavg();
  } catch (err) {
    // Whatever was measured before the failure is still written below.
    report.errors.push(`run stopped: ${(err as Error).message}`);
    log(`run stopped: ${(err as Error).message}`);
  } finally {
    // Let requests still in flight from the last autocannon run finish before the pool closes.
    await new Promise((resolve) => setTimeout(resolve, 2_000));
    await server.stop();
    if (args.drop && url) await dropDatabase(url);
  }
  const outDir = args.out ?? fileURLToPath(new URL('./results', import.meta.url));
  fs.mkdirSync(outDir, { recursive: true });
  const file = path.join(outDir, `${report.date}-${size}${url ? '' : '-pglite'}${args.label ? '-' + args.label : ''}.md`);
  fs.writeFileSync(file, renderReport(report));
  // The figures alone, for bench/growth.ts (a growth table from two runs).
  fs.writeFileSync(file.replace(/\.md$/, '.json'), JSON.stringify(figures(report), null, 1) + '\n');
  log(`wrote ${file}`);
  if (cpuProfDir) log(`server CPU profile in ${cpuProfDir}; summarize with: npx tsx bench/profile-summary.ts <file>`);
}

/** Each scenario's figures and the run's conditions, without the plans and SQL. */
function figures(report: Report): GrowthFigures {
  return {
    date: report.date, size: report.dataset.size, database: report.database, settings: report.settings, loadAverage: report.loadAverage,
    scenarios: report.scenarios.map((r) => ({
      id: r.scenario.id, title: r.scenario.title, skipped: r.skipped, rps: r.rps, p50: r.p50, p99: r.p99, rawRps: r.rawRps, rawP50: r.rawP50,
    })),
  };
}

main().then(
  () => process.exit(0),
  (err) => {
    console.error(err);
    process.exit(1);
  },
);
