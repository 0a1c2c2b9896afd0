import pg from 'pg';

/**
 * Read replicas: hot standbys of the primary by PostgreSQL's own streaming replication
 * (`pg_basebackup -R`). Routes marked read-only run on one of them (src/plugins/auth.ts); everything
 * else, and the principal check, stays on the primary. A replica is in rotation while it answers and
 * its lag is within the bound; it is checked again every `checkEveryMs` either way.
 */
export interface ReplicaSet {
  /**
   * A replica for a read that must see the primary's WAL up to `minLsn` (the position a client's own
   * write returned), or undefined: then the read runs on the primary.
   */
  pick(minLsn?: bigint): Replica | undefined;
  /** A replica failed a request: out of rotation until its next check says otherwise. */
  markDown(replica: Replica, err: unknown): void;
  /** The primary's current WAL position (`pg_current_wal_lsn()`), as `X/Y`. */
  primaryLsn(): Promise<string>;
  /** One round of checks of every replica (the timer runs it; tests call it to skip the wait). */
  check(): Promise<void>;
  states(): ReplicaState[];
  close(): Promise<void>;
}

export interface Replica {
  name: string;
  pool: pg.Pool;
}

export interface ReplicaState {
  /** host:port/database of the replica (never its credentials). */
  name: string;
  state: 'ok' | 'lagging' | 'down';
  /** Seconds behind the primary (resolution: the check interval); null when it does not answer. */
  lagSeconds: number | null;
  /** The WAL position it has replayed, `X/Y`. */
  replayLsn: string | null;
  checkedAt: string | null;
  error: string | null;
}

export interface ReplicaOptions {
  primary: pg.Pool;
  urls: string[];
  /** A replica further behind than this leaves the rotation (DATABASE_REPLICA_MAX_LAG, seconds). */
  maxLagMs: number;
  checkEveryMs?: number;
  poolSize?: number;
}

/** `X/Y` (hex halves) as one number, for comparisons. */
export function parseLsn(text: string): bigint | undefined {
  const match = /^([0-9A-Fa-f]{1,8})\/([0-9A-Fa-f]{1,8})$/.exec(text);
  return match ? (BigInt(`0x${match[1]}`) << 32n) | BigInt(`0x${match[2]}`) : undefined;
}

const CHECK_TIMEOUT_MS = 1000;
/** How many of the primary's recent positions are kept to date a replica's replay. */
const SAMPLES = 120;

interface Tracked extends Replica {
  state: ReplicaState;
  replay?: bigint;
}

export function createReplicaSet(options: ReplicaOptions): ReplicaSet {
  const { primary, maxLagMs, checkEveryMs = 1000 } = options;
  const replicas: Tracked[] = options.urls.map((url) => {
    const pool = new pg.Pool({ connectionString: url, max: options.poolSize ?? 10, connectionTimeoutMillis: CHECK_TIMEOUT_MS });
    // A replica restarting must not crash the process: its idle clients' errors are expected.
    pool.on('error', () => {});
    const name = nameOf(url);
    return { name, pool, state: { name, state: 'down', lagSeconds: null, replayLsn: null, checkedAt: null, error: 'not checked yet' } };
  });
  // The primary's positions over time: a replica is as far behind as the oldest of them it lacks.
  const samples: { at: number; lsn: bigint }[] = [];
  let next = 0;
  let timer: NodeJS.Timeout | undefined;
  let checking: Promise<void> | undefined;

  async function checkOne(replica: Tracked, primaryAt: { at: number; lsn: bigint } | undefined) {
    const now = Date.now();
    try {
      const { rows } = await withTimeout(replica.pool.query<{ standby: boolean; replay: string | null }>(
        'select pg_is_in_recovery() as standby, pg_last_wal_replay_lsn()::text as replay'), CHECK_TIMEOUT_MS);
      const replay = rows[0].replay === null ? undefined : parseLsn(rows[0].replay);
      if (!rows[0].standby || replay === undefined) throw new Error('not a standby of the primary');
      replica.replay = replay;
      const behind = samples.find((s) => s.lsn > replay);
      const lagMs = behind && primaryAt && primaryAt.lsn > replay ? now - behind.at : 0;
      replica.state = {
        name: replica.name,
        state: lagMs > maxLagMs ? 'lagging' : 'ok',
        lagSeconds: Math.round(lagMs / 100) / 10,
        replayLsn: rows[0].replay,
        checkedAt: new Date(now).toISOString(),
        error: null,
      };
    } catch (err) {
      replica.state = { name: replica.name, state: 'down', lagSeconds: null, replayLsn: replica.state.replayLsn, checkedAt: new Date(now).toISOString(), error: messageOf(err) };
    }
  }

  async function checkAll() {
    let primaryAt: { at: number; lsn: bigint } | undefined;
    try {
      const { rows } = await withTimeout(primary.query<{ lsn: string }>('select pg_current_wal_lsn()::text as lsn'), CHECK_TIMEOUT_MS);
      primaryAt = { at: Date.now(), lsn: parseLsn(rows[0].lsn)! };
      if (!samples.length || samples[samples.length - 1].lsn !== primaryAt.lsn) samples.push(primaryAt);
      if (samples.length > SAMPLES) samples.shift();
    } catch {
      // The primary is what the health route reports; replicas are still checked.
    }
    await Promise.all(replicas.map((r) => checkOne(r, primaryAt)));
  }

  const set: ReplicaSet = {
    pick(minLsn) {
      const ready = replicas.filter((r) => r.state.state === 'ok' && (minLsn === undefined || (r.replay !== undefined && r.replay >= minLsn)));
      if (!ready.length) return undefined;
      return ready[next++ % ready.length];
    },
    markDown(replica, err) {
      const tracked = replicas.find((r) => r === replica);
      if (tracked) tracked.state = { ...tracked.state, state: 'down', error: messageOf(err) };
    },
    async primaryLsn() {
      const { rows } = await primary.query<{ lsn: string }>('select pg_current_wal_lsn()::text as lsn');
      return rows[0].lsn;
    },
    check() {
      // One round at a time: a timer tick during a slow round waits for it.
      checking ??= checkAll().finally(() => (checking = undefined));
      return checking;
    },
    states: () => replicas.map((r) => ({ ...r.state })),
    async close() {
      clearInterval(timer);
      await checking;
      await Promise.all(replicas.map((r) => r.pool.end()));
    },
  };
  timer = setInterval(() => void set.check(), checkEveryMs);
  timer.unref();
  void set.check();
  return set;
}

function nameOf(url: string): string {
  try {
    const u = new URL(url);
    return `${u.hostname}:${u.port || '5432'}${u.pathname}`;
  } catch {
    return 'replica';
  }
}

function messageOf(err: unknown): string {
  return String((err as Error)?.message ?? err).slice(0, 200);
}

function withTimeout<T>(promise: Promise<T>, ms: number): Promise<T> {
  let timeout: NodeJS.Timeout;
  return Promise.race([
    promise.finally(() => clearTimeout(timeout)),
    new Promise<never>((_, reject) => (timeout = setTimeout(() => reject(new Error(`no answer within ${ms} ms`)), ms))),
  ]);
}
