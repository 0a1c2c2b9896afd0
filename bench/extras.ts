import os from 'node:os';
import { verify } from '@node-rs/argon2';
import { HASH_CONCURRENCY, hashPassword } from '../src/lib/passwords.js';
import type { Dataset } from './generate.js';
import { median, runLoad, send } from './load.js';
import type { RunSettings, Tokens } from './measure.js';
import { SCENARIOS, importRequest, loginRequest } from './scenarios.js';
import { withRssSampling, type ServerProcess } from './server-process.js';

export interface LoginResult {
  rps: number;
  p50: number;
  p99: number;
  /** On every core, and with as many threads as the service lets hash at once. */
  bareRate: number;
  bareRateAtCap: number;
  cap: number;
  maxRss: number;
  /** Scenario 1 run alone and during a login burst. */
  readAlone?: { rps: number; p99: number };
  readDuringBurst?: { rps: number; p99: number };
  burstLoginRps?: number;
}

/** argon2id verifications per second on `threads` threads with nothing else in the way (the ceiling of login). */
export async function bareHashRate(seconds: number, threads = os.availableParallelism()): Promise<number> {
  const hash = await hashPassword('bench-bare-rate');
  const until = performance.now() + seconds * 1000;
  let done = 0;
  const worker = async () => {
    while (performance.now() < until) {
      await verify(hash, 'bench-bare-rate');
      done++;
    }
  };
  const started = performance.now();
  await Promise.all(Array.from({ length: threads }, worker));
  return done / ((performance.now() - started) / 1000);
}

/** Scenario 11: login throughput against the bare hashing rate, and a read's p99 during a login burst. */
export async function measureLogin(server: ServerProcess, ds: Dataset, tokens: Tokens, settings: RunSettings): Promise<LoginResult> {
  const target = { baseUrl: server.serviceUrl, request: loginRequest(ds) };
  if (settings.warmup > 0) await runLoad(target, { ...settings, duration: settings.warmup });
  const runs = [];
  const bare = [];
  const bareAtCap = [];
  let maxRss = 0;
  for (let rep = 0; rep < settings.reps; rep++) {
    // Alternating, like service and raw: on a shared machine both see the same noise.
    bare.push(await bareHashRate(Math.min(5, settings.duration)));
    bareAtCap.push(await bareHashRate(Math.min(5, settings.duration), HASH_CONCURRENCY));
    const s = await withRssSampling(server, () => runLoad(target, settings));
    runs.push(s.result);
    maxRss = Math.max(maxRss, s.maxRss);
  }
  const read = { baseUrl: server.serviceUrl, token: tokens.admin, request: SCENARIOS[0].request(ds) };
  const alone = await runLoad(read, settings);
  const [burst, during] = await Promise.all([runLoad(target, settings), runLoad(read, settings)]);
  return {
    rps: median(runs.map((r) => r.rps)), p50: median(runs.map((r) => r.p50)), p99: median(runs.map((r) => r.p99)), bareRate: median(bare), bareRateAtCap: median(bareAtCap), cap: HASH_CONCURRENCY, maxRss,
    readAlone: { rps: alone.rps, p99: alone.p99 }, readDuringBurst: { rps: during.rps, p99: during.p99 }, burstLoginRps: burst.rps,
  };
}

export interface ImportResult {
  seconds: number[];
  medianSeconds: number;
  status: number;
  summary?: unknown;
}

/** Scenario 12: sequential 1,000-row imports; the time of each. */
export async function measureImport(server: ServerProcess, tokens: Tokens, count: number): Promise<ImportResult> {
  const seconds = [];
  let last: { status: number; body: unknown } = { status: 0, body: undefined };
  for (let batch = 1; batch <= count; batch++) {
    const res = await send(server.serviceUrl, importRequest(batch), tokens.admin);
    last = res;
    if (res.status !== 200) break;
    seconds.push(res.ms / 1000);
  }
  return { seconds, medianSeconds: seconds.length ? median(seconds) : NaN, status: last.status, summary: last.body };
}
