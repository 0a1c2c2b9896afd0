import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { ConfigError, loadConfig } from '../../src/config.js';

const dirs: string[] = [];
function tempDir() {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'parish-config-'));
  dirs.push(dir);
  return dir;
}
afterAll(() => dirs.forEach((d) => fs.rmSync(d, { recursive: true, force: true })));

const SECRET = 'x'.repeat(32);

describe('loadConfig', () => {
  it('has development defaults', () => {
    const dir = tempDir();
    const c = loadConfig({ DATA_DIR: dir });
    expect(c).toMatchObject({ port: 3000, host: '127.0.0.1', nodeEnv: 'development', dataDir: dir, databaseUrl: undefined, corsOrigins: false, trustProxy: false, publicUrl: 'http://127.0.0.1:3000', logLevel: 'info' });
    expect(c.authRateLimit).toEqual({ accountFailures: 10, ipPerMinute: 300 });
  });

  it('production refuses a missing, empty or short JWT_SECRET with a clear message', () => {
    const dir = tempDir();
    expect(() => loadConfig({ NODE_ENV: 'production', DATA_DIR: dir })).toThrow(ConfigError);
    expect(() => loadConfig({ NODE_ENV: 'production', DATA_DIR: dir })).toThrow(/JWT_SECRET is required in production/);
    expect(() => loadConfig({ NODE_ENV: 'production', DATA_DIR: dir, JWT_SECRET: '' })).toThrow(/JWT_SECRET/);
    expect(() => loadConfig({ NODE_ENV: 'production', DATA_DIR: dir, JWT_SECRET: 'x'.repeat(31) })).toThrow(/JWT_SECRET must be at least 32 bytes/);
    expect(loadConfig({ NODE_ENV: 'production', DATA_DIR: dir, JWT_SECRET: SECRET }).jwtSecret).toBe(SECRET);
    // Production never writes a generated secret.
    expect(fs.existsSync(path.join(dir, 'jwt-secret'))).toBe(false);
  });

  it('development generates a secret once and keeps it in DATA_DIR', () => {
    const dir = path.join(tempDir(), 'nested', 'data');
    const first = loadConfig({ DATA_DIR: dir }).jwtSecret;
    expect(Buffer.byteLength(first)).toBeGreaterThanOrEqual(32);
    expect(fs.readFileSync(path.join(dir, 'jwt-secret'), 'utf8')).toBe(first);
    expect(loadConfig({ DATA_DIR: dir }).jwtSecret).toBe(first);
    expect(fs.statSync(path.join(dir, 'jwt-secret')).mode & 0o077).toBe(0);
    // An explicit secret wins over the file.
    expect(loadConfig({ DATA_DIR: dir, JWT_SECRET: 'explicit' }).jwtSecret).toBe('explicit');
  });

  it('a damaged (empty or short) secret file is replaced, never used', () => {
    const dir = tempDir();
    fs.writeFileSync(path.join(dir, 'jwt-secret'), '\n');
    const secret = loadConfig({ DATA_DIR: dir }).jwtSecret;
    expect(Buffer.byteLength(secret)).toBeGreaterThanOrEqual(32);
    fs.writeFileSync(path.join(dir, 'jwt-secret'), 'short');
    expect(loadConfig({ DATA_DIR: dir }).jwtSecret).not.toBe('short');
  });

  it('refuses a bad PORT naming the variable', () => {
    const dir = tempDir();
    for (const PORT of ['abc', '-1', '65536', '80.5', '1e3x']) {
      expect(() => loadConfig({ DATA_DIR: dir, PORT }), PORT).toThrow(/^PORT must be an integer from 0 to 65535$/);
    }
    expect(loadConfig({ DATA_DIR: dir, PORT: '8080' }).port).toBe(8080);
    expect(loadConfig({ DATA_DIR: dir, PORT: '8080' }).publicUrl).toBe('http://127.0.0.1:8080');
  });

  it('refuses TRUST_PROXY=true; accepts addresses and a hop count', () => {
    const dir = tempDir();
    expect(() => loadConfig({ DATA_DIR: dir, TRUST_PROXY: 'true' })).toThrow(ConfigError);
    expect(() => loadConfig({ DATA_DIR: dir, TRUST_PROXY: 'true' })).toThrow(/TRUST_PROXY must name the proxy addresses/);
    expect(loadConfig({ DATA_DIR: dir, TRUST_PROXY: 'false' }).trustProxy).toBe(false);
    expect(loadConfig({ DATA_DIR: dir, TRUST_PROXY: '10.0.0.0/8, 127.0.0.1' }).trustProxy).toBe('10.0.0.0/8, 127.0.0.1');
    const oneHop = loadConfig({ DATA_DIR: dir, TRUST_PROXY: '1' }).trustProxy as (a: string, hop: number) => boolean;
    expect(typeof oneHop).toBe('function');
    expect([oneHop('10.0.0.1', 0), oneHop('10.0.0.2', 1)]).toEqual([true, false]);
  });

  it('parses the other variables', () => {
    const dir = tempDir();
    const c = loadConfig({
      DATA_DIR: dir, HOST: '0.0.0.0', PUBLIC_URL: 'https://church.example.org//', CORS_ORIGINS: 'https://a.example, https://b.example,',
      DATABASE_URL: 'postgres://u@h/db', SMTP_URL: 'smtp://mail', LOG_LEVEL: 'debug', AUTH_RATE_LIMIT: '5, 50', NODE_ENV: 'test',
    });
    expect(c).toMatchObject({ host: '0.0.0.0', publicUrl: 'https://church.example.org', corsOrigins: ['https://a.example', 'https://b.example'], databaseUrl: 'postgres://u@h/db', smtpUrl: 'smtp://mail', logLevel: 'debug', nodeEnv: 'test' });
    expect(c.authRateLimit).toEqual({ accountFailures: 5, ipPerMinute: 50 });
    expect(() => loadConfig({ DATA_DIR: dir, DATABASE_URL: 'mysql://x' })).toThrow(/DATABASE_URL must be a postgres/);
    expect(() => loadConfig({ DATA_DIR: dir, AUTH_RATE_LIMIT: '0,5' })).toThrow(/AUTH_RATE_LIMIT/);
    expect(() => loadConfig({ DATA_DIR: dir, AUTH_RATE_LIMIT: 'lots' })).toThrow(/AUTH_RATE_LIMIT/);
    expect(() => loadConfig({ DATA_DIR: dir, PUBLIC_URL: 'not a url' })).toThrow(/PUBLIC_URL/);
    expect(() => loadConfig({ DATA_DIR: dir, LOG_LEVEL: 'loud' })).toThrow(/LOG_LEVEL/);
  });
});
