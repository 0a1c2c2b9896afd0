import { execFile, spawn, type ChildProcess } from 'node:child_process';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { afterAll, describe, expect, it } from 'vitest';

/**
 * Issue 31: the README's quick start, literally, on an empty folder: a clone of this repository's
 * committed tree, then the quick start's own command line (`npm install && npm start`) run by a shell.
 * Each phase of the first start says what it is doing on one line with its time; `/` serves the
 * console and `/api/health` answers; the demo credentials are printed once. The start uses the
 * embedded database whatever the suite runs on, so it runs in the PGlite run only.
 */
const run = promisify(execFile);
const root = path.resolve(import.meta.dirname, '../..');
let folder: string | undefined;
let child: ChildProcess | undefined;

afterAll(async () => {
  if (child?.pid && child.exitCode === null) {
    try {
      process.kill(-child.pid, 'SIGTERM');
    } catch {
      /* already gone */
    }
  }
  if (folder) await rm(folder, { recursive: true, force: true });
});

const freePort = () =>
  new Promise<number>((resolve, reject) => {
    const server = net.createServer();
    server.on('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as net.AddressInfo;
      server.close(() => resolve(port));
    });
  });

describe.skipIf(!!process.env.DATABASE_URL)("the README's quick start on an empty folder", () => {
  it('npm install && npm start: phase lines with times, the demo credentials once, then / and /api/health answer', async () => {
    const readme = await readFile(path.join(root, 'README.md'), 'utf8');
    const quickStart = /## Quick start[\s\S]*?```sh\n([^\n]+)\n```/.exec(readme)?.[1];
    expect(quickStart).toBe('npm install && npm start');

    folder = await mkdtemp(path.join(os.tmpdir(), 'parish-quick-start-'));
    await run('git', ['clone', '--quiet', '--no-hardlinks', root, folder], { timeout: 120_000 });

    const port = await freePort();
    const env: NodeJS.ProcessEnv = { ...process.env, PORT: String(port), NODE_ENV: 'development', npm_config_audit: 'false', npm_config_fund: 'false' };
    for (const key of ['DATABASE_URL', 'DATA_DIR', 'JWT_SECRET', 'VITEST', 'VITEST_POOL_ID', 'VITEST_WORKER_ID']) delete env[key];
    const started = Date.now();
    child = spawn('sh', ['-c', quickStart!], { cwd: folder, env, detached: true });
    let output = '';
    child.stdout!.on('data', (d) => (output += d));
    child.stderr!.on('data', (d) => (output += d));
    const exited = new Promise<number | null>((resolve) => child!.on('close', resolve));

    const listening = await Promise.race([
      (async () => {
        while (!/parish: listening on /.test(output)) await new Promise((r) => setTimeout(r, 250));
        return true;
      })(),
      exited.then((code) => {
        throw new Error(`the quick start ended (exit ${code}) before listening:\n${output.slice(-3000)}`);
      }),
    ]);
    expect(listening).toBe(true);
    const phases = output.split('\n').filter((l) => l.startsWith('parish: '));
    console.log(`quick start: served ${((Date.now() - started) / 1000).toFixed(1)} s after the command began (npm install included)\n${phases.join('\n')}`);

    // Each phase on its own line with its time, in order.
    const order = ['building the server bundle', 'building the console', 'opening the database', 'migrating', 'loading the API', 'seeding the demo tenant', 'listening on'];
    const seen = order.map((phase) => phases.findIndex((l) => l.includes(phase)));
    expect(seen.every((i) => i >= 0), phases.join('\n')).toBe(true);
    expect([...seen].sort((x, y) => x - y)).toEqual(seen);
    for (const line of phases.filter((l) => !l.includes('listening on'))) expect(line).toMatch(/… \d+(\.\d+)? s/);
    expect(output.match(/password "[^"]+"/g)).toHaveLength(1);

    const base = `http://127.0.0.1:${port}`;
    const home = await fetch(`${base}/`);
    expect(home.status).toBe(200);
    expect(home.headers.get('content-type')).toMatch(/^text\/html/);
    expect(await home.text()).toMatch(/<div id="root">/);
    const health = await fetch(`${base}/api/health`);
    expect(health.status).toBe(200);
    expect(await health.json()).toMatchObject({ status: 'ok' });
  }, 600_000);
});
