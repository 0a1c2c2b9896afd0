import os from 'node:os';
import type { Dataset } from './generate.js';
import type { ImportResult, LoginResult } from './extras.js';
import type { RunSettings, ScenarioResult } from './measure.js';
import { SIZES } from './sizes.js';

export interface Report {
  date: string;
  dataset: Dataset;
  database: string;
  loadSeconds: number | null;
  otherTenants: number;
  settings: RunSettings;
  runtime: string;
  rss: { idle: number; idleAfter: number; maxUnderLoad: number };
  scenarios: ScenarioResult[];
  login?: LoginResult;
  imports?: ImportResult;
  plans: Record<string, ExplainedStatement[]>;
  /** os.loadavg() (1, 5, 15 min) when the measuring started and when it ended: how loaded the machine was. */
  loadAverage?: { start: number[]; end: number[] };
  /** Steps that failed (the rest of the report stands). */
  errors?: string[];
  /** What the background worker had left to do at the end (queued changes, due jobs). */
  queueAfter?: { changes: number; jobs: number; worker?: boolean };
}

export interface ExplainedStatement {
  sql: string;
  params: string;
  plan: string;
  rlsMs: number;
  rawMs: number;
}

/** Core scenarios with full plans (the others' plans are in earlier reports); every module read scenario has its plan. */
const FULL_PLANS = new Set(['1', '2a', '2b', '4', '5']);
const fullPlan = (id: string) => FULL_PLANS.has(id) || !/^\d/.test(id);
const mb = (bytes: number) => (bytes / 1024 / 1024).toFixed(0);
const n0 = (x: number | undefined) => (x === undefined || Number.isNaN(x) ? '—' : x.toFixed(0));
const fmt = (x: number) => x.toLocaleString('en-US');

export function machineLine(database: string): string {
  const cpu = os.cpus()[0]?.model?.trim() ?? 'unknown CPU';
  return `${os.availableParallelism()} cores (${cpu}), ${(os.totalmem() / 2 ** 30).toFixed(1)} GiB RAM, Node ${process.version}, ${database}, ${os.type()} ${os.release()}`;
}

/** A latency figure, or — when no request completed in the run (autocannon then reports 0). */
const ms = (p50: number | undefined, rps: number | undefined) => (p50 === undefined || !rps || !p50 ? '—' : String(p50));

function scenarioRow(r: ScenarioResult): string {
  const s = r.scenario;
  if (r.skipped) return `| ${s.id} | ${s.title} | skipped: ${r.skipped.replace(/\|/g, '/')} | | | | | | | | | |`;
  const ratio = r.rawRps ? r.rps! / r.rawRps : undefined;
  const verdict = ratio === undefined || s.target === undefined ? '' : ratio >= s.target ? ' ✓' : ' ✗';
  const p99mark = s.kind === 'read' ? (r.p99! < 50 ? '' : ' ✗') : '';
  const l = r.latency;
  const at1 = l ? ms(l.p50, l.rps) : '—';
  const rawAt1 = l ? ms(l.rawP50, l.rawP50 === undefined ? undefined : 1) : '—';
  // The issue's p50 target is read against the one-connection p50 when there is one (a request's own
  // time), else against the throughput runs' p50 (which includes queueing behind the other connections).
  const p50ForTarget = l && l.rps && l.p50 ? l.p50 : r.rps && r.p50 ? r.p50 : undefined;
  const p50Target =
    s.p50Target === undefined ? '—' : `< ${s.p50Target}${p50ForTarget === undefined ? ' ✗' : p50ForTarget < s.p50Target ? ' ✓' : ' ✗'}${l ? '' : ' (at load)'}`;
  // A run in which no request completed (one request slower than the run) has no latency: autocannon reports 0.
  if (!r.rps) return `| ${s.id} | ${s.title} | 0 | no request completed in a run | | ${at1} | ${rawAt1} | ${p50Target} | ${n0(r.rawRps)} | — | ${s.target ?? '—'} | ${mb(r.maxRss ?? 0)} |`;
  return `| ${s.id} | ${s.title} | ${n0(r.rps)} | ${r.p50} | ${r.p99}${p99mark} | ${at1} | ${rawAt1} | ${p50Target} | ${n0(r.rawRps)} | ${ratio === undefined ? '—' : ratio.toFixed(2) + verdict} | ${s.target ?? '—'} | ${mb(r.maxRss ?? 0)} |`;
}

export function renderReport(r: Report): string {
  const spec = SIZES[r.dataset.size];
  const lines = [
    `# Parish benchmark — ${r.dataset.size} — ${r.date}`,
    '',
    `Machine: ${machineLine(r.database)}.`,
    '',
    `Data: ${r.dataset.size} tenant with ${fmt(spec.contacts)} contacts, ${fmt(spec.groups)} groups (6 levels), ${fmt(spec.memberships)} memberships, ` +
      `${fmt(spec.events)} events, ${fmt(spec.attendance)} attendance rows; plus ${r.otherTenants} other tenants of the small size in the same database. ` +
      (r.loadSeconds === null ? 'Reused an already loaded database.' : `Generated and loaded in ${r.loadSeconds.toFixed(0)} s.`),
    '',
    `Load: autocannon, ${r.settings.connections} connections, ${r.settings.duration} s per run after a ${r.settings.warmup} s warm-up, ` +
      `${r.settings.reps} repetitions alternating service and raw ceiling; medians. Latencies in ms. The load generator runs in its own process on the same machine.`,
    '',
    ...(r.loadAverage
      ? [`Machine load (os.loadavg, 1/5/15 min; 2 cores shared with other work): ${r.loadAverage.start.map((x) => x.toFixed(1)).join(' / ')} at the start of the measuring, ${r.loadAverage.end.map((x) => x.toFixed(1)).join(' / ')} at its end.`, '']
      : []),
    `Server runtime: ${r.runtime}. Server RSS: ${mb(r.rss.idle)} MB idle after start, ${mb(r.rss.maxUnderLoad)} MB at most under load, ${mb(r.rss.idleAfter)} MB idle after the run (after GC).`,
    '',
    `Columns: req/s, p50 and p99 of the throughput runs (${r.settings.connections} connection${r.settings.connections === 1 ? '' : 's'}: with more connections than cores, their p50 includes queueing); ` +
      `"p50 @1" and "raw p50 @1": the p50 of the service and of the raw ceiling at ONE connection (a request's own time: ` +
      (r.settings.connections === 1 ? 'the throughput runs themselves' : `a ${r.settings.latency} s latency pass after the throughput runs`) +
      `, for the scenarios with an issue p50 target); "issue p50 target" is judged on "p50 @1" (marked "at load" when only the throughput p50 was measured); ` +
      'ratio = service req/s ÷ raw req/s of the throughput runs.',
    '',
    '| # | Scenario | req/s | p50 | p99 | p50 @1 | raw p50 @1 | issue p50 target | raw req/s | ratio | target | RSS MB |',
    '|---|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|',
    ...r.scenarios.map(scenarioRow),
  ];
  if (r.login) {
    const l = r.login;
    lines.push(
      `| 11 | login (argon2id) | ${n0(l.rps)} | ${l.p50} | ${l.p99} | | | — | bare hashing ${n0(l.bareRate)}/s (${n0(l.bareRateAtCap)}/s on ${l.cap} thread${l.cap === 1 ? '' : 's'}, the service's cap: ${(l.rps / l.bareRateAtCap).toFixed(2)}) | ${(l.rps / l.bareRate).toFixed(2)}${l.rps / l.bareRate >= 0.8 ? ' ✓' : ' ✗'} | 0.8 | ${mb(l.maxRss)} |`,
    );
  }
  if (r.imports) {
    const i = r.imports;
    lines.push(`| 12 | contacts import, 1,000 rows | | ${i.medianSeconds.toFixed(2)} s per import (median of ${i.seconds.map((s) => s.toFixed(2)).join(', ')}) | | | | < 0.5 s (issue 11)${i.medianSeconds < 0.5 ? ' ✓' : ' ✗'} | | | | |`);
  }
  if (r.login?.readDuringBurst) {
    const l = r.login;
    lines.push(
      '',
      `Login burst: scenario 1 alone ${n0(l.readAlone!.rps)} req/s, p99 ${l.readAlone!.p99} ms; during a 10-connection login burst ` +
        `(${n0(l.burstLoginRps)} logins/s) ${n0(l.readDuringBurst!.rps)} req/s, p99 ${l.readDuringBurst!.p99} ms.`,
    );
  }
  if (r.imports && r.imports.status !== 200) lines.push('', `Import failed: ${r.imports.status} ${JSON.stringify(r.imports.summary).slice(0, 300)}`);
  if (r.queueAfter) lines.push('', `Left for the background worker at the end: ${r.queueAfter.changes} queued changes, ${r.queueAfter.jobs} due jobs.`);
  if (r.errors?.length) lines.push('', '## Steps that failed (the figures above stand)', '', ...r.errors.map((e) => `- ${e.replace(/\n/g, ' ')}`));
  lines.push('', '## Per-repetition req/s (service / raw)', '');
  for (const s of r.scenarios) {
    if (s.reps) lines.push(`- ${s.scenario.id}: ${s.reps.map((x) => `${n0(x.rps)} / ${n0(x.rawRps)}`).join(', ')}`);
  }
  lines.push('', '## SQL the service ran (captured from the pg driver; the raw ceiling replays exactly these)', '');
  for (const s of r.scenarios) {
    if (!s.sql) continue;
    lines.push(`### ${s.scenario.id}. ${s.scenario.title}`, '', '```sql', ...s.sql.map((q) => q + ';'), '```', '');
  }
  const planned = Object.entries(r.plans);
  if (planned.length) {
    lines.push(
      '## Database time per statement: as the service runs it (tenant transaction as app_user, RLS) and as the raw ceiling does (no RLS)',
      '',
      '| Scenario | # | Statement | RLS ms | raw ms |',
      '|---|---:|---|---:|---:|',
    );
    for (const [id, plans] of planned) {
      plans.forEach((p, i) => lines.push(`| ${id} | ${i + 1} | \`${p.sql.slice(0, 90).replace(/\|/g, '/')}…\` | ${p.rlsMs.toFixed(2)} | ${p.rawMs.toFixed(2)} |`));
    }
    lines.push('', '## EXPLAIN (ANALYZE, BUFFERS) as the service runs them (scenarios 1, 2, 4, 5 and the modules\' reads)', '');
    for (const [id, plans] of planned.filter(([id]) => fullPlan(id))) {
      lines.push(`### Scenario ${id}`, '', '```', ...plans.flatMap((p) => [p.sql, `-- params: ${p.params}`, p.plan, '']), '```', '');
    }
  }
  return lines.join('\n') + '\n';
}
