import { execFileSync } from 'node:child_process';
import { sql } from 'drizzle-orm';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { buildApp } from '../../src/app.js';
import { withDatabase } from '../../src/db/admin.js';
import type { AppDb } from '../../src/db/client.js';
import { createReplicaSet, type Replica, type ReplicaSet } from '../../src/db/replicas.js';
import { MemoryMailer } from '../../src/lib/mailer.js';
import { api, testConfig, type TestContext } from '../helpers/app.js';
import { newTenant, type TestTenant } from '../helpers/factories.js';

/**
 * Issue 35: read-only routes on a real hot standby of the test PostgreSQL (scripts/pg-standby.sh:
 * pg_basebackup -R, port 5433). PostgreSQL only: PGlite has no replication.
 */
const PRIMARY_URL = process.env.DATABASE_URL;
const STANDBY_PORT = 5433;
const script = new URL('../../scripts/pg-standby.sh', import.meta.url).pathname;
const standby = (command: string) => execFileSync('bash', [script, command], { stdio: 'pipe', timeout: 120_000 });

describe.skipIf(!PRIMARY_URL)('read replicas on a real standby', () => {
  const ctx = {} as TestContext;
  let replicas: ReplicaSet;
  let replica: Replica;
  let replicaUrl: string;
  let t: TestTenant;
  const onStandby = async (text: string) => {
    const client = new pg.Client({ connectionString: replicaUrl });
    await client.connect();
    try {
      return (await client.query(text)).rows;
    } finally {
      await client.end();
    }
  };

  // A pause is a request: replay stops at its next record, so wait until the standby says it has.
  const pause = async () => {
    await onStandby('select pg_wal_replay_pause()');
    await vi.waitFor(async () => expect((await onStandby('select pg_get_wal_replay_pause_state() as s'))[0].s).toBe('paused'), { timeout: 10_000, interval: 50 });
  };

  beforeAll(async () => {
    standby('start');
    const { createTestDb } = await import('../helpers/db.js');
    const appDb: AppDb = await createTestDb();
    const { rows } = (await appDb.db.execute(sql`select current_database() as name`)) as unknown as { rows: { name: string }[] };
    replicaUrl = withDatabase(PRIMARY_URL!.replace(/:5432\//, `:${STANDBY_PORT}/`), rows[0].name);
    // The standby replays the CREATE DATABASE of this file's copy: wait until it can be opened.
    for (let i = 0; ; i++) {
      try {
        await onStandby('select 1');
        break;
      } catch (err) {
        if (i > 600) throw err; // a minute: the standby replays what the primary wrote since its backup first
        await new Promise((r) => setTimeout(r, 100));
      }
    }
    const primary = (appDb.db as unknown as { $client: pg.Pool }).$client;
    // Checked only when a test says so: a background check also takes a connection from the replica's
    // pool, which the tests below watch to see where a read ran.
    replicas = createReplicaSet({ primary, urls: [replicaUrl], maxLagMs: 30_000, checkEveryMs: 600_000 });
    const config = testConfig();
    const mailer = new MemoryMailer();
    const app = await buildApp({ config, db: appDb.db, mailer, logger: false, replicas });
    await app.ready();
    Object.assign(ctx, { app, appDb, db: appDb.db, mailer, config });
    await vi.waitFor(async () => {
      await replicas.check();
      expect(replicas.states()).toMatchObject([{ state: 'ok' }]);
    }, { timeout: 30_000, interval: 200 });
    replica = replicas.pick()!;
    expect(replica).toBeDefined();
    t = await newTenant(ctx);
  }, 180_000);

  afterAll(async () => {
    await onStandby('select pg_wal_replay_resume()').catch(() => {});
    await ctx.app?.close();
    await replicas?.close();
    await ctx.appDb?.close();
  });

  const createContact = async (firstName: string) => {
    const res = await api(ctx.app, t.admin.token).post('/api/crm/contacts', { category: 'Person', person: { firstName, lastName: 'Replica' } });
    expect(res.statusCode).toBe(201);
    return res;
  };
  const read = (id: number, headers: Record<string, string> = {}) =>
    ctx.app.inject({ method: 'GET', url: `/api/crm/contacts/${id}`, headers: { authorization: `Bearer ${t.admin.token}`, ...headers } });

  it('a write answers its WAL position (header and cookie); a read that brings it back sees the write at once, on the replica', async () => {
    const res = await createContact('Immediate');
    const lsn = res.headers['parish-lsn'] as string;
    expect(lsn).toMatch(/^[0-9A-F]+\/[0-9A-F]+$/);
    expect(String(res.headers['set-cookie'])).toMatch(new RegExp(`parish_lsn=${lsn.replace('/', '\\/')}; Path=/api; Max-Age=300; HttpOnly; SameSite=Strict`));
    // By header, then by cookie; whichever server answers must have the write.
    expect((await read(res.json().id, { 'parish-lsn': lsn })).json()).toMatchObject({ person: { firstName: 'Immediate' } });
    expect((await read(res.json().id, { cookie: `parish_lsn=${lsn}` })).json()).toMatchObject({ person: { firstName: 'Immediate' } });
    // Once the replica is known to have replayed it, such reads run there.
    await vi.waitFor(async () => {
      await replicas.check();
      const connects = vi.spyOn(replica.pool, 'connect');
      try {
        expect((await read(res.json().id, { 'parish-lsn': lsn })).statusCode).toBe(200);
        expect(connects).toHaveBeenCalled();
      } finally {
        connects.mockRestore();
      }
    }, { timeout: 10_000, interval: 100 });
  });

  it('with replay paused, reads carrying a newer position go to the primary, reads without one see the replica as it is', async () => {
    await pause();
    try {
      const res = await createContact('Paused');
      const id = res.json().id as number;
      await replicas.check();
      const connects = vi.spyOn(replica.pool, 'connect');
      try {
        const mine = await read(id, { 'parish-lsn': res.headers['parish-lsn'] as string });
        expect(mine.json()).toMatchObject({ person: { firstName: 'Paused' } });
        expect(connects).not.toHaveBeenCalled();
        // Without the position: the replica, which has not replayed the insert yet.
        expect((await read(id)).statusCode).toBe(404);
        expect(connects).toHaveBeenCalled();
      } finally {
        connects.mockRestore();
      }
    } finally {
      await onStandby('select pg_wal_replay_resume()');
    }
  });

  it('a replica further behind than the bound leaves the rotation (health says lagging) and reads go to the primary', async () => {
    const strict = createReplicaSet({ primary: (ctx.db as unknown as { $client: pg.Pool }).$client, urls: [replicaUrl], maxLagMs: 1000, checkEveryMs: 60_000 });
    await pause();
    try {
      await createContact('Lagging');
      await strict.check();
      await new Promise((r) => setTimeout(r, 1500));
      await createContact('Lagging again');
      await strict.check();
      expect(strict.states()[0]).toMatchObject({ state: 'lagging' });
      expect(strict.states()[0].lagSeconds).toBeGreaterThan(1);
      expect(strict.pick()).toBeUndefined();
    } finally {
      await onStandby('select pg_wal_replay_resume()');
      await strict.close();
    }
    await vi.waitFor(async () => {
      await replicas.check();
      expect(replicas.states()[0].state).toBe('ok');
    }, { timeout: 10_000, interval: 200 });
  });

  it('stopping the standby under load answers every read (no 5xx); health says it is down; starting it again puts it back', async () => {
    const ids = await Promise.all(['Load1', 'Load2', 'Load3'].map(async (name) => (await createContact(name)).json().id as number));
    await vi.waitFor(async () => {
      await replicas.check();
      for (const id of ids) expect((await read(id)).statusCode).toBe(200);
    }, { timeout: 10_000, interval: 200 });
    const statuses: number[] = [];
    let stopping = true;
    const load = (async () => {
      while (stopping) {
        const wave = await Promise.all(Array.from({ length: 10 }, (_, i) => read(ids[i % ids.length])));
        statuses.push(...wave.map((r) => r.statusCode));
      }
    })();
    try {
      standby('stop');
      await replicas.check();
      for (let i = 0; i < 5; i++) statuses.push(...(await Promise.all(ids.map((id) => read(id)))).map((r) => r.statusCode));
    } finally {
      stopping = false;
      await load;
    }
    expect(statuses.length).toBeGreaterThan(20);
    expect(statuses.filter((s) => s !== 200)).toEqual([]);
    const health = (await api(ctx.app).get('/api/health')).json();
    expect(health).toMatchObject({ status: 'ok', replicas: [{ state: 'down', lagSeconds: null }] });
    expect(replicas.pick()).toBeUndefined();

    standby('restart-only');
    await vi.waitFor(async () => {
      await replicas.check();
      expect(replicas.states()[0].state).toBe('ok');
    }, { timeout: 30_000, interval: 200 });
    expect((await api(ctx.app).get('/api/health')).json().replicas[0]).toMatchObject({ state: 'ok' });
    const connects = vi.spyOn(replica.pool, 'connect');
    try {
      expect((await read(ids[0])).statusCode).toBe(200);
      expect(connects).toHaveBeenCalled();
    } finally {
      connects.mockRestore();
    }
  }, 120_000);
});
