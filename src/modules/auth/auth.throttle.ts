import crypto from 'node:crypto';
import { and, desc, eq, gt, lt } from 'drizzle-orm';
import type { Db } from '../../db/client.js';
import { authFailures } from '../../db/schema/index.js';

/**
 * Counts failures per key in a sliding window (login failures per tenant and username), in the
 * database: two server processes behind a load balancer see the same count.
 */
export interface FailureThrottle {
  /** Seconds until another attempt is allowed, or 0 when it is allowed now. */
  retryAfter(key: string): Promise<number>;
  fail(key: string): Promise<void>;
  reset(key: string): Promise<void>;
}

/** Rows older than the window are dropped for the key on each failure, and for all keys now and then. */
const PRUNE_ALL_EVERY = 100;

export function createFailureThrottle(db: Db, kind: string, max: number, windowMs: number, now: () => number = Date.now): FailureThrottle {
  const hashed = (key: string) => crypto.createHash('sha256').update(`${kind}\u0000${key}`).digest('hex');
  let failures = 0;
  return {
    async retryAfter(key) {
      const recent = await db
        .select({ at: authFailures.failedAt })
        .from(authFailures)
        .where(and(eq(authFailures.key, hashed(key)), gt(authFailures.failedAt, new Date(now() - windowMs))))
        .orderBy(desc(authFailures.failedAt))
        .limit(max);
      if (recent.length < max) return 0;
      return Math.max(1, Math.ceil((recent[max - 1].at.getTime() + windowMs - now()) / 1000));
    },
    async fail(key) {
      const cutoff = new Date(now() - windowMs);
      await db.insert(authFailures).values({ key: hashed(key), failedAt: new Date(now()) });
      await db.delete(authFailures).where(++failures % PRUNE_ALL_EVERY === 0 ? lt(authFailures.failedAt, cutoff) : and(eq(authFailures.key, hashed(key)), lt(authFailures.failedAt, cutoff)));
    },
    async reset(key) {
      await db.delete(authFailures).where(eq(authFailures.key, hashed(key)));
    },
  };
}
