import { describe, expect, it } from 'vitest';
import { MAX_LIMIT, pageResult, toPage } from '../../src/lib/pagination.js';

describe('toPage', () => {
  it('defaults to page 1, limit 20', () => {
    expect(toPage({})).toEqual({ page: 1, limit: 20, offset: 0 });
  });
  it('computes the offset', () => {
    expect(toPage({ page: 3, limit: 10 })).toEqual({ page: 3, limit: 10, offset: 20 });
  });
  it('clamps limits above 100 to 100', () => {
    expect(MAX_LIMIT).toBe(100);
    expect(toPage({ limit: 101 })).toEqual({ page: 1, limit: 100, offset: 0 });
    expect(toPage({ page: 2, limit: Number.MAX_SAFE_INTEGER })).toEqual({ page: 2, limit: 100, offset: 100 });
    expect(toPage({ limit: 100 }).limit).toBe(100);
  });
  it('never yields a page or limit below 1 or a fraction, whatever reaches it', () => {
    expect(toPage({ page: 0, limit: 0 })).toEqual({ page: 1, limit: 1, offset: 0 });
    expect(toPage({ page: -5, limit: -5 })).toEqual({ page: 1, limit: 1, offset: 0 });
    expect(toPage({ page: 2.5, limit: 10.7 })).toEqual({ page: 2, limit: 10, offset: 10 });
    expect(toPage({ page: Number.NaN, limit: Number.NaN })).toEqual({ page: 1, limit: 20, offset: 0 });
  });
});

describe('pageResult', () => {
  it('builds the list envelope', () => {
    expect(pageResult(toPage({ page: 2, limit: 500 }), ['a'], 101)).toEqual({ data: ['a'], total: 101, page: 2, limit: 100 });
  });
});
