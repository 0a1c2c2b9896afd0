import { spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { DatabaseLockedError, lockDataDir } from '../../src/db/client.js';

const dirs: string[] = [];
function tempDir() {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'parish-lock-'));
  dirs.push(dir);
  return dir;
}
afterAll(() => dirs.forEach((d) => fs.rmSync(d, { recursive: true, force: true })));

/** A pid that certainly is not running: a child that has exited. */
async function deadPid(): Promise<number> {
  const child = spawn(process.execPath, ['-e', '0']);
  await new Promise((r) => child.on('exit', r));
  return child.pid!;
}

describe('lockDataDir', () => {
  it('writes our pid and who we are, and removes the lock on release', () => {
    const dir = tempDir();
    const lock = lockDataDir(dir, 'the server (parish serve)');
    expect(fs.readFileSync(path.join(dir, 'parish.lock'), 'utf8')).toBe(`${process.pid}\nthe server (parish serve)\n`);
    lock.release();
    expect(fs.existsSync(path.join(dir, 'parish.lock'))).toBe(false);
  });

  it('refuses a directory locked by a live process, with a clear message', async () => {
    const dir = tempDir();
    const sleeper = spawn(process.execPath, ['-e', 'setTimeout(() => {}, 60000)']);
    try {
      fs.writeFileSync(path.join(dir, 'parish.lock'), String(sleeper.pid));
      expect(() => lockDataDir(dir)).toThrow(DatabaseLockedError);
      expect(() => lockDataDir(dir)).toThrow(new RegExp(`in use by another Parish process \\(pid ${sleeper.pid}\\)`));
      // The other process's lock is left alone.
      expect(fs.readFileSync(path.join(dir, 'parish.lock'), 'utf8')).toBe(String(sleeper.pid));
      // A lock that says who holds it is named in the message.
      fs.writeFileSync(path.join(dir, 'parish.lock'), `${sleeper.pid}\nthe server (parish serve)\n`);
      expect(() => lockDataDir(dir)).toThrow(new RegExp(`in use by another Parish process \\(pid ${sleeper.pid}, the server \\(parish serve\\)\\)`));
    } finally {
      sleeper.kill();
    }
  });

  it('takes over a stale lock (dead pid, garbage or empty file)', async () => {
    for (const content of [String(await deadPid()), 'garbage', '']) {
      const dir = tempDir();
      fs.writeFileSync(path.join(dir, 'parish.lock'), content);
      const lock = lockDataDir(dir);
      expect(fs.readFileSync(path.join(dir, 'parish.lock'), 'utf8')).toBe(`${process.pid}\na Parish command\n`);
      lock.release();
    }
  });

  it('a lock file naming our own pid but not held by us is stale (a container restarting as pid 1)', () => {
    const dir = tempDir();
    fs.writeFileSync(path.join(dir, 'parish.lock'), String(process.pid));
    lockDataDir(dir).release();
  });

  it('a second open in the same process is refused while the first holds the lock', () => {
    const dir = tempDir();
    const lock = lockDataDir(dir);
    expect(() => lockDataDir(dir)).toThrow(/already open in this process/);
    lock.release();
    lock.release();
    lockDataDir(dir).release();
  });

  it('creates the directory', () => {
    const dir = path.join(tempDir(), 'a', 'b');
    lockDataDir(dir).release();
    expect(fs.existsSync(dir)).toBe(true);
  });
});
