import { spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { sql } from 'drizzle-orm';
import { afterAll, describe, expect, it } from 'vitest';
import { openDb } from '../../src/db/client.js';
import { adminQuery, withDatabase } from '../../src/db/admin.js';
import { api, setupTestApp, TEST_SECRET } from '../helpers/app.js';
import { newTenant } from '../helpers/factories.js';
import { newFund, newGift } from '../helpers/finance.factories.js';

/**
 * Faults (issue 19): a real server process killed with SIGKILL in the middle of an import, PostgreSQL
 * connections terminated under load, a PGlite data directory after its server was killed.
 */
const ctx = setupTestApp();
const isPg = !!process.env.DATABASE_URL;
const children: ChildProcess[] = [];
let faults = 0;

afterAll(() => {
  for (const child of children) if (child.exitCode === null) child.kill('SIGKILL');
  console.log(`faults injected: ${faults}`);
});

async function freePort(): Promise<number> {
  return new Promise((resolve) => {
    const server = net.createServer().listen(0, '127.0.0.1', () => {
      const { port } = server.address() as net.AddressInfo;
      server.close(() => resolve(port));
    });
  });
}

/** Starts `serve` in a child process (tsx) on the given database; resolves once /api/health answers 200. */
async function startServer(env: Record<string, string>): Promise<{ child: ChildProcess; url: string }> {
  const port = await freePort();
  const child = spawn(process.execPath, ['--import', 'tsx', path.join(import.meta.dirname, 'server-process.ts')], {
    env: { ...process.env, NODE_ENV: 'test', JWT_SECRET: TEST_SECRET, PUBLIC_URL: 'https://parish.example.org', PORT: String(port), HOST: '127.0.0.1', ...env },
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  children.push(child);
  let stderr = '';
  child.stderr!.on('data', (c: Buffer) => (stderr += c.toString()));
  const url = `http://127.0.0.1:${port}`;
  for (let i = 0; i < 1800; i++) {
    if (child.exitCode !== null) throw new Error(`server exited ${child.exitCode}: ${stderr}`);
    const ok = await fetch(`${url}/api/health`).then((r) => r.status === 200, () => false);
    if (ok) return { child, url };
    await new Promise((r) => setTimeout(r, 100));
  }
  throw new Error(`server did not start: ${stderr}`);
}

async function kill(child: ChildProcess): Promise<void> {
  const exited = new Promise((resolve) => child.once('exit', resolve));
  child.kill('SIGKILL');
  await exited;
  faults++;
}

async function scalar(query: ReturnType<typeof sql>): Promise<number> {
  const res = await ctx.db.execute(query);
  return Number(Object.values((res as unknown as { rows: Record<string, unknown>[] }).rows[0])[0]);
}

async function databaseUrl(): Promise<string> {
  const res = await ctx.db.execute(sql`select current_database() as name`);
  return withDatabase(process.env.DATABASE_URL!, (res as unknown as { rows: { name: string }[] }).rows[0].name);
}

/** Polls until `ready` holds (every 10 ms), then returns; gives up after `ms`. */
async function until(ready: () => Promise<boolean>, ms = 60_000): Promise<void> {
  const end = Date.now() + ms;
  while (Date.now() < end) {
    if (await ready()) return;
    await new Promise((r) => setTimeout(r, 10));
  }
  throw new Error('condition not reached');
}

/** The counters kept beside the rows agree with count(*) (contact_counts, group_counts, giving_days' all-funds entries). */
async function expectCountersAgree(tenantId: number) {
  expect(await scalar(sql`select coalesce(sum(entries), 0) from giving_days where tenant_id = ${tenantId} and fund_id = 0`)).toBe(await scalar(sql`select count(*) from contributions where tenant_id = ${tenantId}`));
  expect(await scalar(sql`select coalesce(sum(n), 0) from contact_counts where tenant_id = ${tenantId}`)).toBe(await scalar(sql`select count(*) from contacts where tenant_id = ${tenantId}`));
  expect(await scalar(sql`select coalesce(sum(n), 0) from group_counts where tenant_id = ${tenantId}`)).toBe(await scalar(sql`select count(*) from groups where tenant_id = ${tenantId}`));
}

describe.skipIf(!isPg)('a server process killed in the middle of an import (PostgreSQL)', () => {
  it('a contacts import keeps whole batches of 500 or none, and the counters agree with count(*)', async () => {
    const t = await newTenant(ctx);
    const { child, url } = await startServer({ DATABASE_URL: await databaseUrl() });
    const before = await scalar(sql`select count(*) from contacts where tenant_id = ${t.id}`);
    const rows = Array.from({ length: 10_000 }, (_, i) => ({ firstName: 'Killed', lastName: `Import${i}`, email: `killed${i}@example.org` }));
    const request = fetch(`${url}/api/crm/contacts/import`, {
      method: 'POST', headers: { authorization: `Bearer ${t.admin.token}`, 'content-type': 'application/json' }, body: JSON.stringify({ contacts: rows }),
    }).catch((err: Error) => err);
    await until(async () => (await scalar(sql`select count(*) from contacts where tenant_id = ${t.id}`)) > before);
    await kill(child);
    expect(await request).toBeInstanceOf(Error); // the connection died with the process
    const imported = (await scalar(sql`select count(*) from contacts where tenant_id = ${t.id}`)) - before;
    expect(imported % 500).toBe(0);
    expect(imported).toBeGreaterThan(0);
    expect(imported).toBeLessThan(10_000);
    // Every imported contact came with its person row and email: no half-written contact.
    expect(await scalar(sql`select count(*) from persons where tenant_id = ${t.id} and last_name like 'Import%'`)).toBe(imported);
    expect(await scalar(sql`select count(*) from contact_emails where tenant_id = ${t.id} and value like 'killed%'`)).toBe(imported);
    await expectCountersAgree(t.id);
    const list = (await api(ctx.app, t.admin.token).get('/api/crm/contacts?limit=1')).json();
    expect(list.total).toBe(before + imported);
    console.log(`contacts import killed: ${imported} of 10000 rows kept (whole batches), 0 half-written`);
  }, 240_000);

  it('a giving import (one transaction) leaves all of its gifts or none', async () => {
    const t = await newTenant(ctx);
    const fund = await newFund(ctx, t.admin.token, { name: 'General' });
    await newGift(ctx, t.admin.token, { fundId: fund.id }); // the counters have something to keep
    const { child, url } = await startServer({ DATABASE_URL: await databaseUrl() });
    const rows = Array.from({ length: 5_000 }, (_, i) => ({ date: '2026-03-01', amount: String(100 + i), fund: fund.name, method: 'Cash', name: `Donor ${i}` }));
    const request = fetch(`${url}/api/finance/contributions/import`, {
      method: 'POST', headers: { authorization: `Bearer ${t.admin.token}`, 'content-type': 'application/json' }, body: JSON.stringify({ rows }),
    }).catch((err: Error) => err);
    // Killed while its transaction is open on the server.
    const db = (await ctx.db.execute(sql`select current_database() as name`)) as unknown as { rows: { name: string }[] };
    await until(async () => (await adminQuery(process.env.DATABASE_URL!, `select count(*)::int as n from pg_stat_activity where datname = '${db.rows[0].name}' and backend_xid is not null and pid <> pg_backend_pid()`)).rows[0].n > 0);
    await kill(child);
    await request;
    const gifts = await scalar(sql`select count(*) from contributions where tenant_id = ${t.id}`);
    expect([1, 5_001]).toContain(gifts);
    expect(await scalar(sql`select count(*) from contribution_lines where tenant_id = ${t.id}`)).toBe(gifts);
    await expectCountersAgree(t.id);
    console.log(`giving import killed: ${gifts - 1} of 5000 gifts kept`);
  }, 240_000);
});

describe.skipIf(!isPg)('PostgreSQL connections terminated under load', () => {
  it('answers 503 at worst while its connections are killed, and recovers without a restart', async () => {
    const t = await newTenant(ctx);
    const name = ((await ctx.db.execute(sql`select current_database() as name`)) as unknown as { rows: { name: string }[] }).rows[0].name;
    const client = api(ctx.app, t.admin.token);
    const statuses = new Map<number, number>();
    const bodies = new Set<string>();
    let stop = false;
    const load = async (i: number) => {
      for (let n = 0; !stop; n++) {
        const res = n % 2 ? await client.get('/api/crm/contacts?limit=5') : await client.post('/api/crm/contacts', { category: 'Person', person: { firstName: 'Load', lastName: `W${i}-${n}` } });
        statuses.set(res.statusCode, (statuses.get(res.statusCode) ?? 0) + 1);
        if (res.statusCode >= 500) bodies.add(res.body);
      }
    };
    const workers = Array.from({ length: 6 }, (_, i) => load(i));
    for (let round = 0; round < 5; round++) {
      await new Promise((r) => setTimeout(r, 300));
      const killed = await adminQuery(process.env.DATABASE_URL!, `select count(*) filter (where pg_terminate_backend(pid))::int as n from pg_stat_activity where datname = '${name}' and pid <> pg_backend_pid()`);
      faults += (killed.rows[0] as { n: number }).n;
    }
    await new Promise((r) => setTimeout(r, 300));
    stop = true;
    await Promise.all(workers);
    const seen = Object.fromEntries(statuses);
    console.log(`pg_terminate_backend under load: ${JSON.stringify(seen)}`);
    expect([...statuses.keys()].filter((s) => s >= 500 && s !== 503)).toEqual([]);
    for (const body of bodies) expect(JSON.parse(body)).toEqual({ statusCode: 503, error: 'Service Unavailable', message: 'Database unavailable' });
    // Recovered: every request after the storm succeeds, on the same app and pool.
    for (let i = 0; i < 10; i++) expect((await client.get('/api/crm/contacts?limit=1')).statusCode).toBe(200);
    expect((await client.post('/api/crm/contacts', { category: 'Person', person: { firstName: 'After', lastName: 'Storm' } })).statusCode).toBe(201);
    await expectCountersAgree(t.id);
  }, 120_000);
});

describe('a PGlite data directory after SIGKILL of its server', () => {
  it('reopens with what was committed (the stale lock of the dead process taken over)', async () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'parish-kill-'));
    try {
      const env = { DATA_DIR: dir, DATABASE_URL: '', NODE_ENV: 'development', LOG_LEVEL: 'silent' };
      const first = await startServer(env); // migrates and seeds the demo tenant on a first start
      const tenants = await fetch(`${first.url}/api/tenants`).then((r) => r.json() as Promise<{ total: number }>);
      expect(tenants.total).toBe(1);
      await kill(first.child);
      // The dead server's lock file is stale (its pid is gone): the directory opens, with the demo data.
      const reopened = await openDb({ dataDir: dir });
      const res = (await reopened.db.execute(sql`select (select count(*)::int from contacts) as contacts, (select count(*)::int from tenants) as tenants`)) as unknown as { rows: { contacts: number; tenants: number }[] };
      expect(res.rows[0].tenants).toBe(1);
      expect(res.rows[0].contacts).toBeGreaterThan(10);
      await reopened.db.execute(sql`select 1`);
      await reopened.close();
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  }, 240_000);
});
