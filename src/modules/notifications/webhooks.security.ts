import crypto from 'node:crypto';
import { seal, unseal } from '../../lib/sealed.js';
import dns from 'node:dns';
import net from 'node:net';
import type { LookupFunction } from 'node:net';
import { BadRequestError } from '../../lib/errors.js';

/**
 * Webhook URL rules (modules-contract §6) and the protection against server-side request forgery:
 * in production only https, and no target whose address (after DNS resolution) is private,
 * loopback, link-local or otherwise not a public unicast address. The address is checked when a
 * webhook is saved AND on every delivery, inside the connection's own DNS lookup (safeLookup), so
 * a name re-pointed to an internal address after it was saved (DNS rebinding) is refused too.
 */

const blocked = new net.BlockList();
for (const [prefix, bits] of [
  ['0.0.0.0', 8], ['10.0.0.0', 8], ['100.64.0.0', 10], ['127.0.0.0', 8], ['169.254.0.0', 16], ['172.16.0.0', 12],
  ['192.0.0.0', 24], ['192.0.2.0', 24], ['192.88.99.0', 24], ['192.168.0.0', 16], ['198.18.0.0', 15], ['198.51.100.0', 24],
  ['203.0.113.0', 24], ['224.0.0.0', 4], ['240.0.0.0', 4],
] as const) blocked.addSubnet(prefix, bits, 'ipv4');
for (const [prefix, bits] of [
  // No ::ffff:0:0/96 rule: BlockList matches IPv4 addresses against IPv6 rules through that very
  // mapping, so it would block every IPv4 address; mapped addresses are unwrapped below instead.
  ['::', 128], ['::1', 128], ['64:ff9b::', 96], ['100::', 64], ['2001:db8::', 32], ['fc00::', 7], ['fe80::', 10], ['ff00::', 8],
] as const) blocked.addSubnet(prefix, bits, 'ipv6');

/** True for addresses a production server must never call (private, loopback, link-local, …). */
export function isForbiddenAddress(address: string): boolean {
  const family = net.isIP(address);
  if (family === 0) return true;
  if (family === 6) {
    // An IPv4-mapped IPv6 address is judged as the IPv4 address it carries.
    const mapped = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/i.exec(address);
    if (mapped) return blocked.check(mapped[1], 'ipv4');
    return blocked.check(address, 'ipv6');
  }
  return blocked.check(address, 'ipv4');
}

const LOOPBACK_NAMES = new Set(['localhost', '127.0.0.1', '[::1]']);

function isLoopbackHost(hostname: string): boolean {
  return LOOPBACK_NAMES.has(hostname.toLowerCase()) || /^127(\.\d{1,3}){3}$/.test(hostname);
}

/** Parses and checks a webhook URL's shape; 400 with the reason. Returns the normalized URL. */
export function checkWebhookUrlShape(raw: string, production: boolean): URL {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    throw new BadRequestError('body/url must be an absolute URL');
  }
  if (url.protocol !== 'https:' && url.protocol !== 'http:') throw new BadRequestError('body/url must be an http or https URL');
  if (url.username || url.password) throw new BadRequestError('body/url must not contain credentials');
  if (url.protocol === 'http:' && (production || !isLoopbackHost(url.hostname))) {
    throw new BadRequestError(production ? 'body/url must be an https URL' : 'body/url must be https (http is allowed only to a loopback address outside production)');
  }
  return url;
}

/** In production, resolves the host and refuses private targets (the save-time check). */
export async function checkWebhookTarget(url: URL, production: boolean): Promise<void> {
  if (!production) return;
  const host = url.hostname.replace(/^\[|\]$/g, '');
  let addresses: dns.LookupAddress[];
  try {
    addresses = await dns.promises.lookup(host, { all: true, verbatim: true });
  } catch {
    throw new BadRequestError(`body/url host ${host} could not be resolved`);
  }
  if (addresses.length === 0 || addresses.some((a) => isForbiddenAddress(a.address))) {
    throw new BadRequestError('body/url must not point to a private, loopback or link-local address');
  }
}

export class ForbiddenTargetError extends Error {}

/**
 * A `lookup` for http.request that refuses forbidden addresses (production): the check happens on
 * the very addresses the socket connects to.
 */
export const safeLookup: LookupFunction = (hostname, options, callback) => {
  dns.lookup(hostname, { ...options, all: true }, (err, addresses) => {
    if (err) return callback(err, '', 4);
    const list = addresses as unknown as dns.LookupAddress[];
    const bad = list.find((a) => isForbiddenAddress(a.address));
    if (bad || list.length === 0) {
      return callback(new ForbiddenTargetError(`Refused: ${hostname} resolves to a private, loopback or link-local address`), '', 4);
    }
    if ((options as { all?: boolean }).all) return (callback as unknown as (e: null, a: dns.LookupAddress[]) => void)(null, list);
    callback(null, list[0].address, list[0].family);
  });
};

/** `whsec_` and 32 random bytes: the secret a receiver verifies signatures with. */
export function newWebhookSecret(): string {
  return `whsec_${crypto.randomBytes(32).toString('base64url')}`;
}

/** Webhook secrets at rest are sealed (src/lib/sealed.ts): rotate each secret after changing JWT_SECRET. */
const PURPOSE = 'webhook-secret-encryption';

export const encryptSecret = (secret: string, configSecret: string) => seal(secret, configSecret, PURPOSE);
export const decryptSecret = (stored: string, configSecret: string) => unseal(stored, configSecret, PURPOSE);

/** `t=<unix seconds>,v1=<hex HMAC-SHA256 of "<t>.<raw body>">`. */
export function signatureHeader(secret: string, body: string, unixSeconds: number): string {
  const mac = crypto.createHmac('sha256', secret).update(`${unixSeconds}.${body}`).digest('hex');
  return `t=${unixSeconds},v1=${mac}`;
}
