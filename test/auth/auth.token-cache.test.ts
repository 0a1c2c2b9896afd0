import crypto from 'node:crypto';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { api, expectError, probeRoutes, setupTestApp, TEST_SECRET } from '../helpers/app.js';
import { newTenant } from '../helpers/factories.js';

const ctx = setupTestApp({}, probeRoutes);

const b64 = (value: unknown) => Buffer.from(JSON.stringify(value)).toString('base64url');
function token(claims: Record<string, unknown>) {
  const head = `${b64({ alg: 'HS256', typ: 'JWT' })}.${b64(claims)}`;
  return `${head}.${crypto.createHmac('sha256', TEST_SECRET).update(head).digest('base64url')}`;
}

afterEach(() => vi.restoreAllMocks());

/**
 * The auth plugin remembers tokens it verified (src/plugins/auth.ts), never past their expiry; the
 * principal is still checked on every request (auth.security: a disabled user's next request is 401).
 */
describe('verified access tokens remembered', () => {
  it('a token that was accepted is refused once it has expired (30 s clock tolerance)', async () => {
    const t = await newTenant(ctx);
    const now = Math.floor(Date.now() / 1000);
    const jwt = token({ sub: String(t.admin.id), tid: t.id, sid: crypto.randomUUID(), typ: 'access', iss: 'parish', aud: 'parish-api', iat: now, exp: now + 60 });
    expect((await api(ctx.app, jwt).get('/api/test/whoami')).statusCode).toBe(200);
    const real = Date.now.bind(Date);
    vi.spyOn(Date, 'now').mockImplementation(() => real() + 60_000 + 20_000);
    expect((await api(ctx.app, jwt).get('/api/test/whoami')).statusCode).toBe(200);
    vi.spyOn(Date, 'now').mockImplementation(() => real() + 60_000 + 31_000);
    expectError(await api(ctx.app, jwt).get('/api/test/whoami'), 401);
  });

});
