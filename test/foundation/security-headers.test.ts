import helmet from 'helmet';
import type { ServerResponse } from 'node:http';
import { describe, expect, it } from 'vitest';
import { api, probeRoutes, setupTestApp } from '../helpers/app.js';

const ctx = setupTestApp({}, probeRoutes);

/** What helmet's default middleware sets, found independently of src/plugins/security-headers.ts. */
function helmetHeaders(): Record<string, string> {
  const set: Record<string, string> = {};
  const res = { setHeader: (k: string, v: string) => void (set[k.toLowerCase()] = v), removeHeader: () => {}, getHeader: () => undefined, hasHeader: () => false };
  helmet()({} as never, res as unknown as ServerResponse, () => {});
  return set;
}

describe('security headers (helmet defaults, computed once)', () => {
  it("every response carries all of helmet's default headers and no x-powered-by: a 200, a 401, a 404", async () => {
    const expected = helmetHeaders();
    expect(Object.keys(expected)).toContain('content-security-policy');
    for (const res of [await api(ctx.app).get('/api/health'), await api(ctx.app).get('/api/test/whoami'), await api(ctx.app).get('/api/no-such-route')]) {
      for (const [name, value] of Object.entries(expected)) expect(res.headers[name], `${name} on ${res.statusCode}`).toBe(value);
      expect(res.headers['x-powered-by']).toBeUndefined();
    }
  });
});
