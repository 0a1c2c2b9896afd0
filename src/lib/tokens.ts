import crypto from 'node:crypto';

/** Opaque 256-bit tokens (refresh, password reset): the client gets the token, the database its hash. */
export function newOpaqueToken(): { token: string; hash: string } {
  const token = crypto.randomBytes(32).toString('base64url');
  return { token, hash: hashToken(token) };
}

export function hashToken(token: string): string {
  return crypto.createHash('sha256').update(token).digest('hex');
}
