import type { Dataset } from './generate.js';
import { median, runLoad, send, type HttpRequest, type LoadOptions, type LoadResult } from './load.js';
import type { Scenario } from './scenarios.js';
import { withRssSampling, type ServerProcess } from './server-process.js';

export interface RunSettings extends LoadOptions {
  warmup: number;
  reps: number;
  /**
   * Seconds of the latency pass: after the throughput runs, one run of the service and one of the raw
   * ceiling at ONE connection, for the scenarios with an issue p50 target (the modules'), so the
   * target is read against a request's own time, not its queueing behind 9 others on 2 cores. 0: none.
   */
  latency: number;
}

/** A p50 measured at one connection (the latency pass). */
export interface Latency {
  p50: number;
  p99: number;
  rps: number;
  rawP50?: number;
  /** Where the figure comes from: its own pass, or the throughput runs themselves when they used one connection. */
  source: 'latency pass' | 'throughput runs';
}

export interface ScenarioResult {
  scenario: Scenario;
  /** Set when the scenario could not run (route missing, error status). */
  skipped?: string;
  rps?: number;
  p50?: number;
  p99?: number;
  rawRps?: number;
  rawP50?: number;
  rawP99?: number;
  maxRss?: number;
  sql?: string[];
  reps?: { rps: number; rawRps?: number }[];
  /** p50/p99 at one connection (the latency pass; scenarios with a p50 target). */
  latency?: Latency;
}

export type Tokens = Record<'admin' | 'leader', string>;

/** Logs both bench users in (access tokens live 15 minutes, so this runs before every scenario). */
export async function login(server: ServerProcess, ds: Dataset): Promise<Tokens> {
  const one = async (username: string) => {
    const res = await send(server.serviceUrl, { method: 'POST', path: '/api/auth/login', body: { churchName: ds.slug, username, password: ds.password } });
    if (res.status !== 200) throw new Error(`login of ${username} failed: ${res.status} ${JSON.stringify(res.body)}`);
    return (res.body as { accessToken: string }).accessToken;
  };
  return { admin: await one(ds.adminUsername), leader: await one(ds.zoneLeaderUsername) };
}

/**
 * Captures which statements the auth hook runs, so that scenario captures can leave them out. Two
 * requests that stop after authentication (both fail validation): a GET, whose principal check
 * begins the transaction (BEGIN; set_config; EXECUTE), and a POST, whose check is a prepared query
 * on the pool (a request with a body begins its transaction in the handler) — the POST reads
 * (advanced search, s3) need the latter left out too.
 */
export async function captureAuth(server: ServerProcess, token: string) {
  await server.call('capture-start');
  const res = await send(server.serviceUrl, { method: 'GET', path: '/api/crm/contacts?page=0' }, token);
  const post = await send(server.serviceUrl, { method: 'POST', path: '/api/crm/contacts', body: {} }, token);
  return { status: res.status, postStatus: post.status, statements: await server.call<string[]>('capture-auth') };
}

const firstRequest = (r: HttpRequest | (() => HttpRequest)) => (typeof r === 'function' ? r() : r);

/**
 * One scenario: a check request, the SQL capture (reads), a warm-up of both targets, then `reps`
 * alternating service and raw runs. Medians of each.
 */
export async function measureScenario(server: ServerProcess, ds: Dataset, scenario: Scenario, settings: RunSettings, log: (m: string) => void): Promise<ScenarioResult> {
  const tokens = await login(server, ds);
  const token = tokens[scenario.as];
  if (scenario.setup) await scenario.setup(ds, (req) => send(server.serviceUrl, req, token));
  const request = scenario.request(ds);
  const isRead = scenario.kind === 'read';
  if (isRead) await server.call('capture-start');
  const check = await send(server.serviceUrl, firstRequest(request), token);
  const captured = isRead ? await server.call<{ sql: string[]; mismatches: string[] }>('capture-stop', { name: scenario.id, tenantId: ds.tenantId }) : undefined;
  const sql = captured?.sql;
  if (captured?.mismatches.length) return { scenario, sql, skipped: `raw replay differs from the service: ${captured.mismatches.join('; ')}` };
  if (check.status >= 300) return { scenario, skipped: `check request answered ${check.status}: ${JSON.stringify(check.body).slice(0, 200)}` };
  const hasRaw = isRead && server.kind === 'postgres' && (sql?.length ?? 0) > 0;
  const service = { baseUrl: server.serviceUrl, token, request };
  const raw = { baseUrl: server.rawUrl, request: { method: 'GET' as const, path: `/raw/${encodeURIComponent(scenario.id)}` } };
  const warm = { ...settings, duration: settings.warmup };
  if (settings.warmup > 0) {
    await runLoad(service, warm);
    if (hasRaw) await runLoad(raw, warm);
  }
  const svc: LoadResult[] = [], rawRuns: LoadResult[] = [];
  let maxRss = 0;
  for (let rep = 0; rep < settings.reps; rep++) {
    const s = await withRssSampling(server, () => runLoad(service, settings));
    svc.push(s.result);
    maxRss = Math.max(maxRss, s.maxRss);
    if (hasRaw) rawRuns.push(await runLoad(raw, settings));
    log(`  ${scenario.id} rep ${rep + 1}: ${s.result.rps.toFixed(0)} req/s` + (hasRaw ? `, raw ${rawRuns[rep].rps.toFixed(0)} req/s` : ''));
  }
  let latency: Latency | undefined;
  if (scenario.p50Target !== undefined && settings.connections === 1) {
    latency = { p50: median(svc.map((r) => r.p50)), p99: median(svc.map((r) => r.p99)), rps: median(svc.map((r) => r.rps)), rawP50: hasRaw ? median(rawRuns.map((r) => r.p50)) : undefined, source: 'throughput runs' };
  } else if (scenario.p50Target !== undefined && settings.latency > 0) {
    const one = { connections: 1, duration: settings.latency };
    try {
      const s = await runLoad(service, one);
      const r = hasRaw ? await runLoad(raw, one) : undefined;
      latency = { p50: s.p50, p99: s.p99, rps: s.rps, rawP50: r?.p50, source: 'latency pass' };
      log(`  ${scenario.id} at 1 connection: p50 ${s.p50} ms` + (r ? `, raw p50 ${r.p50} ms` : ''));
    } catch (err) {
      // The throughput figures stand; only the latency pass is missing.
      log(`  ${scenario.id} latency pass failed: ${(err as Error).message}`);
    }
  }
  return {
    scenario, sql, maxRss, latency,
    rps: median(svc.map((r) => r.rps)), p50: median(svc.map((r) => r.p50)), p99: median(svc.map((r) => r.p99)),
    rawRps: hasRaw ? median(rawRuns.map((r) => r.rps)) : undefined,
    rawP50: hasRaw ? median(rawRuns.map((r) => r.p50)) : undefined,
    rawP99: hasRaw ? median(rawRuns.map((r) => r.p99)) : undefined,
    reps: svc.map((r, i) => ({ rps: r.rps, rawRps: rawRuns[i]?.rps })),
  };
}
