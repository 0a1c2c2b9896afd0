import type { FastifyInstance, InjectOptions, LightMyRequestResponse } from 'fastify';
import { afterAll, beforeAll } from 'vitest';
import { buildApp } from '../../src/app.js';
import { loadConfig, type Config } from '../../src/config.js';
import type { AppDb, Db } from '../../src/db/client.js';
import { MemoryMailer } from '../../src/lib/mailer.js';

export const TEST_SECRET = 'test-secret-that-is-long-enough-for-hs256-000';

export interface TestContext {
  app: FastifyInstance;
  appDb: AppDb;
  db: Db;
  mailer: MemoryMailer;
  config: Config;
}

export function testConfig(overrides: Partial<Config> = {}): Config {
  return {
    ...loadConfig({ NODE_ENV: 'test', JWT_SECRET: TEST_SECRET, PUBLIC_URL: 'https://parish.example.org', DATA_DIR: '/nonexistent' }),
    ...overrides,
  };
}

/** Builds an app on an existing test database. */
export async function buildTestApp(appDb: AppDb, overrides: Partial<Config> = {}, configure?: (app: FastifyInstance) => void): Promise<TestContext> {
  const config = testConfig(overrides);
  const mailer = new MemoryMailer();
  const app = await buildApp({ config, db: appDb.db, mailer, logger: false });
  configure?.(app);
  await app.ready();
  return { app, appDb, db: appDb.db, mailer, config };
}

/**
 * One database and one app for the whole test file (each file gets its own database; tests in a
 * file keep apart by building their own tenants with the factories).
 */
export function setupTestApp(overrides: Partial<Config> = {}, configure?: (app: FastifyInstance) => void): TestContext {
  const ctx = {} as TestContext;
  beforeAll(async () => {
    const { createTestDb } = await import('./db.js');
    const appDb = await createTestDb();
    Object.assign(ctx, await buildTestApp(appDb, overrides, configure));
  });
  afterAll(async () => {
    await ctx.app?.close();
    await ctx.appDb?.close();
  });
  return ctx;
}

type Body = InjectOptions['payload'];

/** A tiny HTTP client over app.inject, optionally with a bearer token. */
export function api(app: FastifyInstance, token?: string) {
  const headers = (extra?: Record<string, string>) => ({ ...(token ? { authorization: `Bearer ${token}` } : {}), ...extra });
  const send = (method: InjectOptions['method'], url: string, payload?: Body, extra?: Record<string, string>): Promise<LightMyRequestResponse> =>
    app.inject({ method, url, payload, headers: headers(extra) });
  return {
    get: (url: string) => send('GET', url),
    post: (url: string, body?: Body, extra?: Record<string, string>) => send('POST', url, body, extra),
    put: (url: string, body?: Body, extra?: Record<string, string>) => send('PUT', url, body, extra),
    delete: (url: string) => send('DELETE', url),
  };
}

/** Asserts the error shape of api-contract §1 and returns the message. */
export function expectError(res: LightMyRequestResponse, statusCode: number): string {
  const body = res.json();
  if (res.statusCode !== statusCode || Object.keys(body).sort().join() !== 'error,message,statusCode' || body.statusCode !== statusCode || typeof body.message !== 'string') {
    throw new Error(`expected a ${statusCode} error, got ${res.statusCode}: ${res.body}`);
  }
  return body.message;
}

/**
 * Test-only routes that exist whatever other modules are built: `GET /api/test/whoami`
 * (authenticated) and `GET /api/test/contacts-reader` (permission contacts:read), `POST /api/test/echo` (contacts:write, body {name}). Pass as the
 * `configure` argument of setupTestApp.
 */
export function probeRoutes(app: FastifyInstance): void {
  const principal = (request: { auth: { userId: number; tenantId: number; permissions: ReadonlySet<string> } }) => ({
    userId: request.auth.userId,
    tenantId: request.auth.tenantId,
    permissions: [...request.auth.permissions],
  });
  app.get('/api/test/whoami', { config: { authenticated: true } }, async (request) => principal(request));
  app.get('/api/test/contacts-reader', { config: { permission: 'contacts:read' } }, async (request) => principal(request));
  app.post(
    '/api/test/echo',
    {
      config: { permission: 'contacts:write' },
      schema: { body: { type: 'object', required: ['name'], properties: { name: { type: 'string', maxLength: 200 } }, additionalProperties: false } },
    },
    async (request) => request.body,
  );
}
