import { fork, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import { fileURLToPath } from 'node:url';
import { build } from '../scripts/build.mjs';

export interface ServerProcess {
  serviceUrl: string;
  rawUrl: string;
  kind: 'pglite' | 'postgres';
  pid: number;
  call<T = unknown>(cmd: string, args?: Record<string, unknown>): Promise<T>;
  stop(): Promise<void>;
}

/**
 * By default the server runs as `npm start` runs the service: an esbuild bundle (scripts/build.mjs, the
 * same build as dist/cli.mjs) on plain node. `tsx` runs the TypeScript through the tsx loader instead,
 * which costs tens of MB of RSS and some speed (as `npm run parish` does).
 */
async function entryPoint(tsx: boolean, withoutChangeRecording: boolean): Promise<{ file: string; execArgv: string[] }> {
  if (tsx) {
    if (withoutChangeRecording) throw new Error('--without-change-recording patches the bundle: not with --tsx');
    return { file: fileURLToPath(new URL('./server.ts', import.meta.url)), execArgv: ['--import', 'tsx', '--expose-gc'] };
  }
  const file = await build({ entry: 'bench/server.ts', outfile: 'bench/.build/server.mjs' });
  return { file: withoutChangeRecording ? withoutRecording(file) : file, execArgv: ['--expose-gc'] };
}

/**
 * Issue 11's A/B of the write paths: a copy of the bundle whose recordChanges (src/changes/recorder.ts)
 * returns at once, as if its body were gone: no diff, no redaction, no INSERT into changes. The
 * sources are untouched (the tree is shared); the copy is checked to hold exactly one patched function.
 */
function withoutRecording(file: string): string {
  const head = 'async function recordChanges(tx, actor, items) {';
  const text = fs.readFileSync(file, 'utf8');
  const at = text.indexOf(head);
  if (at < 0 || text.indexOf(head, at + 1) >= 0) throw new Error(`--without-change-recording: expected one "${head}" in ${file}`);
  const out = file.replace(/\.mjs$/, '-without-changes.mjs');
  fs.writeFileSync(out, text.slice(0, at + head.length) + ' return []; // bench --without-change-recording\n' + text.slice(at + head.length));
  return out;
}

/**
 * Starts bench/server.ts in a child process (the load generator stays in this one) and waits until it
 * listens. The server runs the background worker as src/server.ts does, unless `worker` is false.
 */
export async function startServer(env: {
  databaseUrl?: string; dataDir: string; tsx?: boolean; cpuProfDir?: string; withoutChangeRecording?: boolean; worker?: boolean;
  /** Hot standbys for the read-only routes (bench/replicas.ts). */
  replicaUrls?: string[];
  /** Shared by several server processes, so a token one signs is taken by the others (bench/replicas.ts). */
  jwtSecret?: string;
}): Promise<ServerProcess> {
  const entry = await entryPoint(env.tsx ?? false, env.withoutChangeRecording ?? false);
  const profiling = env.cpuProfDir ? ['--cpu-prof', `--cpu-prof-dir=${env.cpuProfDir}`] : [];
  const child: ChildProcess = fork(entry.file, [], {
    execArgv: [...entry.execArgv, ...profiling],
    env: { ...process.env, BENCH_DATABASE_URL: env.databaseUrl ?? '', BENCH_DATA_DIR: env.dataDir, BENCH_WORKER: env.worker === false ? '0' : '1', BENCH_REPLICA_URLS: env.replicaUrls?.join(',') ?? '', BENCH_JWT_SECRET: env.jwtSecret ?? '' },
    stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
  });
  let next = 0;
  const pending = new Map<number, { resolve: (v: unknown) => void; reject: (e: Error) => void }>();
  const ready = new Promise<{ servicePort: number; rawPort: number; kind: 'pglite' | 'postgres' }>((resolve, reject) => {
    child.once('exit', (code) => reject(new Error(`bench server exited with code ${code}`)));
    child.on('message', (msg: { ready?: boolean; id?: number; result?: unknown; error?: string } & Record<string, never>) => {
      if (msg.ready) return resolve(msg as never);
      const p = pending.get(msg.id!);
      pending.delete(msg.id!);
      if (msg.error) p?.reject(new Error(msg.error));
      else p?.resolve(msg.result);
    });
  });
  const info = await ready;
  return {
    serviceUrl: `http://127.0.0.1:${info.servicePort}`,
    rawUrl: `http://127.0.0.1:${info.rawPort}`,
    kind: info.kind,
    pid: child.pid!,
    call: <T>(cmd: string, args: Record<string, unknown> = {}) =>
      new Promise<T>((resolve, reject) => {
        const id = ++next;
        pending.set(id, { resolve: resolve as (v: unknown) => void, reject });
        child.send({ id, cmd, ...args });
      }),
    stop: () =>
      new Promise<void>((resolve) => {
        child.once('exit', () => resolve());
        child.disconnect();
      }),
  };
}

/** Samples the server's RSS while `work` runs; returns its result and the largest RSS seen (bytes). */
export async function withRssSampling<T>(server: ServerProcess, work: () => Promise<T>): Promise<{ result: T; maxRss: number }> {
  let maxRss = await server.call<number>('rss');
  const timer = setInterval(() => {
    server.call<number>('rss').then((rss) => (maxRss = Math.max(maxRss, rss)), () => {});
  }, 250);
  try {
    return { result: await work(), maxRss };
  } finally {
    clearInterval(timer);
  }
}
