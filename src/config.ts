import crypto from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';

/** The From address of emails unless MAIL_FROM says otherwise. */
export const DEFAULT_MAIL_FROM = 'Parish <no-reply@parish.local>';

export interface AuthRateLimit {
  /** Failed logins (and reset requests) allowed per (tenant, username) in 15 minutes. */
  accountFailures: number;
  /** Requests per IP and minute to login and forgot-password together. */
  ipPerMinute: number;
}

export interface Config {
  port: number;
  host: string;
  databaseUrl?: string;
  /** Hot standbys of DATABASE_URL for read-only routes (DATABASE_REPLICA_URLS, comma-separated). */
  replicaUrls: string[];
  /** A replica further behind than this leaves the rotation (DATABASE_REPLICA_MAX_LAG, seconds). */
  replicaMaxLagMs: number;
  dataDir: string;
  jwtSecret: string;
  publicUrl: string;
  smtpUrl?: string;
  /** The From address of every email (MAIL_FROM). */
  mailFrom: string;
  nodeEnv: string;
  logLevel: string;
  corsOrigins: string[] | boolean;
  /** false, the proxy addresses/CIDRs (comma-separated), or a hop count as a predicate. */
  trustProxy: string | boolean | ((address: string, hop: number) => boolean);
  authRateLimit: AuthRateLimit;
}

export class ConfigError extends Error {}

type Env = Record<string, string | undefined>;

/** Reads the environment into a typed Config, failing fast with a message that names the variable. */
export function loadConfig(env: Env = process.env): Config {
  const nodeEnv = env.NODE_ENV || 'development';
  const port = int(env, 'PORT', 3000, 0, 65535);
  const host = env.HOST || '127.0.0.1';
  const dataDir = dataDirOf(env);
  const databaseUrl = env.DATABASE_URL || undefined;
  if (databaseUrl && !/^postgres(ql)?:\/\//.test(databaseUrl)) {
    throw new ConfigError('DATABASE_URL must be a postgres:// or postgresql:// connection string');
  }
  const replicaUrls = (env.DATABASE_REPLICA_URLS ?? '').split(',').map((s) => s.trim()).filter(Boolean);
  if (replicaUrls.length && !databaseUrl) throw new ConfigError('DATABASE_REPLICA_URLS needs DATABASE_URL (replicas are standbys of a PostgreSQL primary)');
  if (replicaUrls.some((url) => !/^postgres(ql)?:\/\//.test(url))) {
    throw new ConfigError('DATABASE_REPLICA_URLS must be postgres:// or postgresql:// connection strings, comma-separated');
  }
  return {
    port,
    host,
    databaseUrl,
    replicaUrls,
    replicaMaxLagMs: int(env, 'DATABASE_REPLICA_MAX_LAG', 5, 1, 3600) * 1000,
    dataDir,
    jwtSecret: jwtSecret(env.JWT_SECRET, nodeEnv, dataDir),
    publicUrl: publicUrl(env.PUBLIC_URL || `http://${host}:${port}`),
    smtpUrl: env.SMTP_URL || undefined,
    mailFrom: env.MAIL_FROM || DEFAULT_MAIL_FROM,
    nodeEnv,
    logLevel: logLevel(env.LOG_LEVEL || (nodeEnv === 'test' ? 'silent' : 'info')),
    corsOrigins: env.CORS_ORIGINS ? env.CORS_ORIGINS.split(',').map((s) => s.trim()).filter(Boolean) : false,
    trustProxy: trustProxy(env.TRUST_PROXY),
    authRateLimit: authRateLimit(env.AUTH_RATE_LIMIT),
  };
}

/** The embedded database's directory: DATA_DIR, else ./data of the current folder. */
export function dataDirOf(env: Env = process.env): string {
  return path.resolve(env.DATA_DIR || 'data');
}

function int(env: Env, name: string, fallback: number, min: number, max: number): number {
  const raw = env[name];
  if (raw === undefined || raw === '') return fallback;
  const n = Number(raw);
  if (!Number.isInteger(n) || n < min || n > max) throw new ConfigError(`${name} must be an integer from ${min} to ${max}`);
  return n;
}

function jwtSecret(secret: string | undefined, nodeEnv: string, dataDir: string): string {
  if (secret) {
    if (nodeEnv === 'production' && Buffer.byteLength(secret) < 32) {
      throw new ConfigError('JWT_SECRET must be at least 32 bytes in production');
    }
    return secret;
  }
  if (nodeEnv === 'production') throw new ConfigError('JWT_SECRET is required in production (at least 32 bytes)');
  // Development: generate one secret and keep it beside the data, so tokens survive a restart.
  const file = path.join(dataDir, 'jwt-secret');
  let stored = '';
  try {
    stored = fs.readFileSync(file, 'utf8').trim();
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'ENOENT') throw new ConfigError(`Cannot read ${file}: ${(err as Error).message}`);
  }
  // A damaged (empty, truncated) file must never become a guessable secret: replace it.
  if (Buffer.byteLength(stored) >= 32) return stored;
  fs.mkdirSync(dataDir, { recursive: true });
  const generated = crypto.randomBytes(48).toString('base64url');
  fs.writeFileSync(file, generated, { mode: 0o600 });
  fs.chmodSync(file, 0o600);
  return generated;
}

function publicUrl(raw: string): string {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    throw new ConfigError('PUBLIC_URL must be an absolute http(s) URL, e.g. https://church.example.org');
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') throw new ConfigError('PUBLIC_URL must be an http or https URL');
  return raw.replace(/\/+$/, '');
}

const LOG_LEVELS = ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'];

function logLevel(raw: string): string {
  if (!LOG_LEVELS.includes(raw)) throw new ConfigError(`LOG_LEVEL must be one of: ${LOG_LEVELS.join(', ')}`);
  return raw;
}

function trustProxy(raw: string | undefined): Config['trustProxy'] {
  if (!raw || raw === 'false') return false;
  // A number is a hop count: trust that many proxies in front of the server.
  if (/^\d{1,2}$/.test(raw)) {
    const hops = Number(raw);
    return (_address, hop) => hop < hops;
  }
  if (raw === 'true') {
    throw new ConfigError('TRUST_PROXY must name the proxy addresses (e.g. 127.0.0.1 or 10.0.0.0/8), not "true"');
  }
  return raw;
}

function authRateLimit(raw: string | undefined): AuthRateLimit {
  if (!raw) return { accountFailures: 10, ipPerMinute: 300 };
  const [a, b] = raw.split(',').map((s) => Number(s.trim()));
  if (!Number.isInteger(a) || !Number.isInteger(b) || a < 1 || b < 1) {
    throw new ConfigError('AUTH_RATE_LIMIT must be "<failed logins per account per 15 min>,<requests per IP per minute>", e.g. "10,300"');
  }
  return { accountFailures: a, ipPerMinute: b };
}
