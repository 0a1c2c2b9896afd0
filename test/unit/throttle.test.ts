import { describe, expect, it } from 'vitest';
import { FailureThrottle } from '../../src/lib/throttle.js';

function clock(start = 1_000_000) {
  const c = { now: start, fn: () => c.now };
  return c;
}

describe('FailureThrottle', () => {
  it('allows up to max failures, then asks to wait until the oldest leaves the window', () => {
    const c = clock();
    const t = new FailureThrottle(3, 60_000, c.fn);
    expect(t.retryAfter('k')).toBe(0);
    t.fail('k');
    c.now += 10_000;
    t.fail('k');
    t.fail('k');
    expect(t.retryAfter('k')).toBe(50);
    c.now += 49_500;
    expect(t.retryAfter('k')).toBe(1);
    c.now += 501;
    expect(t.retryAfter('k')).toBe(0);
  });

  it('keys are independent', () => {
    const c = clock();
    const t = new FailureThrottle(1, 60_000, c.fn);
    t.fail('a');
    expect(t.retryAfter('a')).toBe(60);
    expect(t.retryAfter('b')).toBe(0);
  });

  it('reset forgets the key', () => {
    const c = clock();
    const t = new FailureThrottle(2, 60_000, c.fn);
    t.fail('a');
    t.fail('a');
    expect(t.retryAfter('a')).toBeGreaterThan(0);
    t.reset('a');
    expect(t.retryAfter('a')).toBe(0);
    t.fail('a');
    expect(t.retryAfter('a')).toBe(0);
  });

  it('retryAfter is at least 1 second while throttled', () => {
    const c = clock();
    const t = new FailureThrottle(1, 1000, c.fn);
    t.fail('a');
    c.now += 999.9;
    expect(t.retryAfter('a')).toBe(1);
  });

  it('drops expired keys when the key count overflows', () => {
    const c = clock();
    const t = new FailureThrottle(5, 1000, c.fn, 100);
    for (let i = 0; i < 100; i++) t.fail(`k${i}`);
    c.now += 2000;
    t.fail('last');
    expect((t as unknown as { failures: Map<string, number[]> }).failures.size).toBe(1);
  });

  it('stays bounded and fast under a spray of distinct live keys', () => {
    const c = clock();
    const t = new FailureThrottle(5, 60_000, c.fn, 1000);
    const started = performance.now();
    for (let i = 0; i < 200_000; i++) t.fail(`k${i}`);
    expect(performance.now() - started).toBeLessThan(5000);
    const size = (t as unknown as { failures: Map<string, number[]> }).failures.size;
    expect(size).toBeLessThanOrEqual(1000);
    // The newest keys are kept.
    t.fail('k199999');
    t.fail('k199999');
    t.fail('k199999');
    t.fail('k199999');
    expect(t.retryAfter('k199999')).toBeGreaterThan(0);
  });
});
