import { Algorithm, hash, verify } from '@node-rs/argon2';
import crypto from 'node:crypto';
import os from 'node:os';

// OWASP's argon2id recommendation: m=19 MiB, t=2, p=1.
const OPTIONS = { algorithm: Algorithm.Argon2id, memoryCost: 19456, timeCost: 2, parallelism: 1 };

/**
 * At most one hash per core runs at once; the rest queue, so a burst of logins cannot take every
 * core (and the libuv pool) away from other requests.
 */
export const HASH_CONCURRENCY = Math.max(1, os.availableParallelism() - 1);
let running = 0;
const waiting: (() => void)[] = [];

async function limited<T>(fn: () => Promise<T>): Promise<T> {
  if (running >= HASH_CONCURRENCY) await new Promise<void>((resolve) => waiting.push(resolve));
  running++;
  try {
    return await fn();
  } finally {
    running--;
    waiting.shift()?.();
  }
}

export function hashPassword(password: string): Promise<string> {
  return limited(() => hash(password, OPTIONS));
}

let dummyHash: Promise<string> | undefined;

/**
 * Verifies a password; with no stored hash (unknown user, invited user) it verifies against a dummy
 * hash so that the answer takes the same time either way.
 */
export async function verifyPassword(stored: string | null | undefined, password: string): Promise<boolean> {
  if (!stored) {
    dummyHash ??= hashPassword(crypto.randomBytes(16).toString('hex'));
    const dummy = await dummyHash;
    await limited(() => verify(dummy, password).catch(() => false));
    return false;
  }
  return limited(() => verify(stored, password).catch(() => false));
}
