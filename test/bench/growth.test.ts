import { describe, expect, it } from 'vitest';
import { renderGrowth, type GrowthFigures } from '../../bench/growth.js';

const settings = { connections: 1, duration: 5, reps: 2, warmup: 2, latency: 5 };
const run = (size: string, scenarios: GrowthFigures['scenarios']): GrowthFigures => ({
  date: '2026-11-28', size, database: 'PostgreSQL 15', settings, loadAverage: { start: [1, 1, 1], end: [1.5, 1, 1] }, scenarios,
});

describe('bench growth table (bench/growth.ts)', () => {
  it('puts each scenario of both runs on one row: p50 growth, req/s, the raw ceiling and the ratio', () => {
    const text = renderGrowth(
      run('large', [
        { id: '1', title: 'contacts list', rps: 500, p50: 2, rawRps: 1000 },
        { id: 'a5', title: 'absentees', rps: 4, p50: 300, rawRps: 5 },
        { id: 'x', title: 'only in the first run', rps: 1, p50: 1 },
      ]),
      run('huge', [
        { id: '1', title: 'contacts list', rps: 400, p50: 3, rawRps: 800 },
        { id: 'a5', title: 'absentees', skipped: 'check request answered 500' },
      ]),
    );
    expect(text).toContain('| 1 | contacts list | 2.0 → 3.0 | 1.50× | 500 → 400 | 1000 → 800 | 1.25× | 0.50 → 0.50 |');
    expect(text).toContain('| a5 | absentees | skipped: check request answered 500 |');
    expect(text).not.toContain('only in the first run');
    expect(text).toContain('1 connection(s), 5 s × 2 after a 2 s warm-up (the same for both)');
  });
});
