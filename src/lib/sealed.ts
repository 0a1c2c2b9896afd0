import crypto from 'node:crypto';

/**
 * Text at rest that a database dump alone must not reveal (webhook secrets, replayable responses):
 * AES-256-GCM with a key derived (HKDF-SHA256) from the configured JWT_SECRET and a purpose label,
 * so no second key has to be configured. Changing JWT_SECRET makes sealed text unreadable.
 */
function keyFor(configSecret: string, purpose: string): Buffer {
  return Buffer.from(crypto.hkdfSync('sha256', configSecret, 'parish-webhooks', purpose, 32));
}

export function seal(text: string, configSecret: string, purpose: string): string {
  const iv = crypto.randomBytes(12);
  const cipher = crypto.createCipheriv('aes-256-gcm', keyFor(configSecret, purpose), iv);
  const data = Buffer.concat([cipher.update(text, 'utf8'), cipher.final()]);
  return `v1:${Buffer.concat([iv, cipher.getAuthTag(), data]).toString('base64')}`;
}

export function unseal(sealed: string, configSecret: string, purpose: string): string {
  if (!sealed.startsWith('v1:')) throw new Error('Unknown sealed text format');
  const raw = Buffer.from(sealed.slice(3), 'base64');
  const decipher = crypto.createDecipheriv('aes-256-gcm', keyFor(configSecret, purpose), raw.subarray(0, 12));
  decipher.setAuthTag(raw.subarray(12, 28));
  return Buffer.concat([decipher.update(raw.subarray(28)), decipher.final()]).toString('utf8');
}
