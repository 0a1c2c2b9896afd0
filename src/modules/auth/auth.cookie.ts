import type { FastifyReply, FastifyRequest } from 'fastify';

/**
 * The console's refresh token (console.md "Tokens"): an `HttpOnly; SameSite=Strict` cookie scoped to
 * /api/auth, so the token never reaches JavaScript and is sent only to refresh and logout. `Secure`
 * is dropped only when the request came to a loopback address outside production (a developer's
 * http://127.0.0.1:3000), where browsers would otherwise refuse it.
 */
export const REFRESH_COOKIE = 'parish_refresh';
const PATH = '/api/auth';
const LOOPBACK = new Set(['localhost', '127.0.0.1', '[::1]', '::1']);

function attributes(request: FastifyRequest, nodeEnv: string): string {
  const secure = nodeEnv === 'production' || !LOOPBACK.has(request.hostname);
  return `Path=${PATH}; HttpOnly; SameSite=Strict${secure ? '; Secure' : ''}`;
}

export function setRefreshCookie(request: FastifyRequest, reply: FastifyReply, nodeEnv: string, token: string, maxAgeSeconds: number): void {
  reply.header('set-cookie', `${REFRESH_COOKIE}=${token}; Max-Age=${maxAgeSeconds}; ${attributes(request, nodeEnv)}`);
}

export function clearRefreshCookie(request: FastifyRequest, reply: FastifyReply, nodeEnv: string): void {
  reply.header('set-cookie', `${REFRESH_COOKIE}=; Max-Age=0; ${attributes(request, nodeEnv)}`);
}

/** The refresh cookie's value, if the request carries one. */
export function readRefreshCookie(request: FastifyRequest): string | undefined {
  const header = request.headers.cookie;
  if (!header) return undefined;
  for (const part of header.split(';')) {
    const eq = part.indexOf('=');
    if (eq > 0 && part.slice(0, eq).trim() === REFRESH_COOKIE) return part.slice(eq + 1).trim() || undefined;
  }
  return undefined;
}
