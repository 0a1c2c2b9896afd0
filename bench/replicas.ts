/**
 * `npx tsx bench/replicas.ts --database-url URL --size SIZE`: the read scenarios on a loaded bench
 * database (its manifest from `npm run bench -- --generate-only`), run twice side by side:
 *   - one server process on the primary alone (as `npm run bench` runs it);
 *   - two server processes, each with the primary and one hot standby (DATABASE_REPLICA_URLS), the
 *     connections split between them.
 * For each run it measures the requests, and the CPU time of the primary's and the standby's
 * PostgreSQL processes and of the server processes (/proc, so the bench runs on the database's
 * machine), per request. The standby is started by scripts/pg-standby.sh (pg_basebackup -R of the
 * whole local server) unless one answers already, and stopped at the end unless --keep-standby.
 * See bench/README.md ("Read replicas").
 */
import { execFileSync } from 'node:child_process';
import crypto from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import pg from 'pg';
import { readManifest } from './database.js';
import type { Dataset } from './generate.js';
import { median, runLoad, send, type LoadResult } from './load.js';
import { login, type Tokens } from './measure.js';
import { MODULE_SCENARIOS, SCENARIOS, type Scenario } from './scenarios.js';
import { startServer, type ServerProcess } from './server-process.js';
import { isSizeName } from './sizes.js';

const { values: args } = parseArgs({
  options: {
    'database-url': { type: 'string' },
    size: { type: 'string', default: 'large' },
    'standby-port': { type: 'string', default: '5433' },
    scenarios: { type: 'string', default: 'reads' },
    duration: { type: 'string', default: '10' },
    warmup: { type: 'string', default: '2' },
    connections: { type: 'string', default: '10' },
    'keep-standby': { type: 'boolean', default: false },
    out: { type: 'string' },
    label: { type: 'string' },
  },
});

const log = (m: string) => process.stderr.write(`${new Date().toISOString().slice(11, 19)} ${m}\n`);
const root = fileURLToPath(new URL('..', import.meta.url));

/** CPU seconds of a PostgreSQL server: its postmaster, the children it reaped, and the children alive now. */
class ServerCpu {
  private constructor(private readonly postmaster: number) {}

  static async of(url: string): Promise<ServerCpu> {
    const client = new pg.Client({ connectionString: url });
    await client.connect();
    try {
      const { rows } = await client.query<{ dir: string }>(`select current_setting('data_directory') as dir`);
      return new ServerCpu(Number(fs.readFileSync(path.join(rows[0].dir, 'postmaster.pid'), 'utf8').split('\n')[0]));
    } finally {
      await client.end();
    }
  }

  seconds(): number {
    let ticks = 0;
    for (const entry of fs.readdirSync('/proc')) {
      if (!/^\d+$/.test(entry)) continue;
      const stat = procStat(Number(entry));
      if (!stat) continue;
      if (stat.pid === this.postmaster) ticks += stat.utime + stat.stime + stat.cutime + stat.cstime;
      else if (stat.ppid === this.postmaster) ticks += stat.utime + stat.stime;
    }
    return ticks / CLOCK_TICKS;
  }
}

/** USER_HZ: 100 on Linux everywhere this runs. */
const CLOCK_TICKS = 100;

function procStat(pid: number) {
  let text: string;
  try {
    text = fs.readFileSync(`/proc/${pid}/stat`, 'utf8');
  } catch {
    return undefined; // exited meanwhile
  }
  // The command name (field 2) may hold spaces: the fields after it start past its closing parenthesis.
  const f = text.slice(text.lastIndexOf(')') + 2).split(' ');
  return { pid, ppid: Number(f[1]), utime: Number(f[11]), stime: Number(f[12]), cutime: Number(f[13]), cstime: Number(f[14]) };
}

const processSeconds = (pids: number[]) => pids.reduce((sum, pid) => {
  const s = procStat(pid);
  return sum + (s ? (s.utime + s.stime) / CLOCK_TICKS : 0);
}, 0);

interface Run {
  rps: number;
  p50: number;
  requests: number;
  primaryCpuMs: number;
  standbyCpuMs: number;
  serverCpuMs: number;
}

interface Setup {
  name: string;
  servers: ServerProcess[];
}

async function measure(setup: Setup, ds: Dataset, scenario: Scenario, cpu: { primary: ServerCpu; standby: ServerCpu }): Promise<Run> {
  const tokens: Tokens = await login(setup.servers[0], ds);
  const token = tokens[scenario.as];
  if (scenario.setup) await scenario.setup(ds, (req) => send(setup.servers[0].serviceUrl, req, token));
  const request = scenario.request(ds);
  for (const server of setup.servers) {
    const check = await send(server.serviceUrl, typeof request === 'function' ? request() : request, token);
    if (check.status >= 300) throw new Error(`check request answered ${check.status}: ${JSON.stringify(check.body).slice(0, 200)}`);
  }
  const share = Math.max(1, Math.floor(Number(args.connections) / setup.servers.length));
  const load = (duration: number) => Promise.all(setup.servers.map((server) => runLoad({ baseUrl: server.serviceUrl, token, request }, { connections: share, duration })));
  await load(Number(args.warmup));
  const pids = setup.servers.map((s) => s.pid);
  const before = { primary: cpu.primary.seconds(), standby: cpu.standby.seconds(), server: processSeconds(pids) };
  const duration = Number(args.duration);
  const results: LoadResult[] = await load(duration);
  const after = { primary: cpu.primary.seconds(), standby: cpu.standby.seconds(), server: processSeconds(pids) };
  const rps = results.reduce((sum, r) => sum + r.rps, 0);
  const requests = rps * duration;
  const perRequest = (seconds: number) => (seconds * 1000) / requests;
  return {
    rps, requests, p50: median(results.map((r) => r.p50)),
    primaryCpuMs: perRequest(after.primary - before.primary),
    standbyCpuMs: perRequest(after.standby - before.standby),
    serverCpuMs: perRequest(after.server - before.server),
  };
}

function standbyScript(command: 'start' | 'stop') {
  execFileSync('bash', [path.join(root, 'scripts/pg-standby.sh'), command], { stdio: 'inherit', env: { ...process.env, STANDBY_PORT: args['standby-port'] } });
}

async function main() {
  const url = args['database-url'];
  const size = args.size!;
  if (!url) throw new Error('--database-url: the loaded bench database (postgres://…/parish_bench)');
  if (!isSizeName(size)) throw new Error(`--size must be one of the bench sizes (got ${size})`);
  const ds = readManifest(url, size);
  const standbyUrl = new URL(url);
  standbyUrl.port = args['standby-port']!;
  const urls = { primary: url, standby: standbyUrl.toString() };
  const ids = args.scenarios === 'reads' ? undefined : new Set(args.scenarios!.split(','));
  const scenarios = [...SCENARIOS, ...MODULE_SCENARIOS].filter((s) => s.kind === 'read' && (ids ? ids.has(s.id) : s.id !== '2c' && s.id !== 'f3r'));

  log(`standby on port ${args['standby-port']} (pg_basebackup of the whole server when none answers)`);
  const backupStarted = Date.now();
  standbyScript('start');
  const backupSeconds = (Date.now() - backupStarted) / 1000;
  log(`standby ready in ${backupSeconds.toFixed(0)} s`);
  const cpu = { primary: await ServerCpu.of(urls.primary), standby: await ServerCpu.of(urls.standby) };
  const jwtSecret = crypto.randomBytes(48).toString('hex');
  const dataDir = path.join(os.tmpdir(), 'parish-bench-replicas');
  const common = { databaseUrl: url, dataDir, worker: false, jwtSecret };
  const setups: Setup[] = [
    { name: 'one process, primary only', servers: [await startServer(common)] },
    { name: 'two processes, primary + one standby', servers: [await startServer({ ...common, replicaUrls: [urls.standby] }), await startServer({ ...common, replicaUrls: [urls.standby] })] },
  ];
  const rows: { scenario: Scenario; runs: (Run | string)[] }[] = [];
  const loadStart = os.loadavg();
  try {
    for (const scenario of scenarios) {
      const runs: (Run | string)[] = [];
      for (const setup of setups) {
        const run = await measure(setup, ds, scenario, cpu).catch((err: Error) => err.message);
        runs.push(run);
        log(`${scenario.id} ${setup.name}: ` + (typeof run === 'string' ? `failed: ${run}` : `${run.rps.toFixed(0)} req/s, primary ${run.primaryCpuMs.toFixed(2)} ms CPU a request, standby ${run.standbyCpuMs.toFixed(2)}`));
      }
      rows.push({ scenario, runs });
    }
  } finally {
    for (const setup of setups) for (const server of setup.servers) await server.stop();
    if (!args['keep-standby']) standbyScript('stop');
  }
  const outDir = args.out ?? fileURLToPath(new URL('./results', import.meta.url));
  const file = path.join(outDir, `${new Date().toISOString().slice(0, 10)}-${size}-replicas${args.label ? '-' + args.label : ''}.md`);
  fs.writeFileSync(file, render(rows, setups, { size, backupSeconds, loadStart, loadEnd: os.loadavg() }));
  log(`wrote ${file}`);
}

const f = (n: number, digits = 2) => n.toFixed(digits);

function render(rows: { scenario: Scenario; runs: (Run | string)[] }[], setups: Setup[], info: { size: string; backupSeconds: number; loadStart: number[]; loadEnd: number[] }): string {
  const out = [
    `# Read replicas — ${info.size}, ${new Date().toISOString().slice(0, 10)}`,
    '',
    `\`npx tsx bench/replicas.ts\`, ${args.connections} connections (split between the processes), ${args.duration} s after a ${args.warmup} s warm-up, background worker off.`,
    `A: ${setups[0].name}. B: ${setups[1].name} (the standby by scripts/pg-standby.sh: pg_basebackup -R of the whole server in ${f(info.backupSeconds, 0)} s).`,
    `CPU: the PostgreSQL processes of each server and the server processes, from /proc, per request.`,
    `Machine: ${os.cpus().length} cores; load average ${info.loadStart.map((x) => f(x, 1)).join(' ')} at the start, ${info.loadEnd.map((x) => f(x, 1)).join(' ')} at the end. Everything (both servers, the processes, the load generator) shares the cores.`,
    '',
    '| # | Scenario | req/s A → B | p50 ms A → B | primary CPU ms/req A → B | standby CPU ms/req B | server CPU ms/req A → B | standby share of the database CPU (B) |',
    '|---|---|---:|---:|---:|---:|---:|---:|',
  ];
  const sums = { a: 0, b: 0, primaryB: 0, standbyB: 0, n: 0 };
  for (const { scenario, runs } of rows) {
    const [a, b] = runs;
    if (typeof a === 'string' || typeof b === 'string') {
      out.push(`| ${scenario.id} | ${scenario.title} | failed: ${(typeof a === 'string' ? a : b as string).replace(/\|/g, '/').slice(0, 120)} | | | | | |`);
      continue;
    }
    const standbyShare = b.standbyCpuMs / (b.primaryCpuMs + b.standbyCpuMs);
    sums.a += a.primaryCpuMs; sums.b += b.primaryCpuMs; sums.primaryB += b.primaryCpuMs; sums.standbyB += b.standbyCpuMs; sums.n++;
    out.push(`| ${scenario.id} | ${scenario.title} | ${f(a.rps, 0)} → ${f(b.rps, 0)} | ${a.p50} → ${b.p50} | ${f(a.primaryCpuMs)} → ${f(b.primaryCpuMs)} | ${f(b.standbyCpuMs)} | ${f(a.serverCpuMs)} → ${f(b.serverCpuMs)} | ${f(100 * standbyShare, 0)}% |`);
  }
  if (sums.n) {
    out.push('', `Over the ${sums.n} scenarios: the primary's CPU per request summed ${f(sums.a)} ms with one process on the primary alone and ${f(sums.b)} ms with the standby beside it (${f(100 * (1 - sums.b / sums.a), 0)}% less); the standby took ${f(100 * sums.standbyB / (sums.primaryB + sums.standbyB), 0)}% of the database CPU of run B.`);
  }
  return out.join('\n') + '\n';
}

main().then(
  () => process.exit(0),
  (err) => {
    console.error(err);
    process.exit(1);
  },
);
