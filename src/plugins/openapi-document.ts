import type { FastifyInstance } from 'fastify';
import { buildApp } from '../app.js';
import { loadConfig } from '../config.js';
import type { Db } from '../db/client.js';
import { MemoryMailer } from '../lib/mailer.js';

/**
 * The app as the docs see it, without a database: building the app does no I/O, services built at
 * registration (prepared queries) get an inert stand-in, and the handlers that would use it never run.
 */
export async function buildDocumentedApp(): Promise<FastifyInstance> {
  const config = loadConfig({ NODE_ENV: 'development', JWT_SECRET: 'openapi-document-only-not-a-secret-000000', DATA_DIR: '/nonexistent', PUBLIC_URL: 'http://localhost:3000' });
  const app = await buildApp({ config, db: inertDb(), logger: false, mailer: new MemoryMailer() });
  await app.ready();
  return app;
}

/**
 * The OpenAPI document exactly as the code describes it, as the text of the committed `openapi.json`
 * (`npm run openapi` writes it; test/docs/openapi.test.ts fails when the two differ). Deterministic:
 * paths and component schemas in sorted order, everything else in code order, no timestamps.
 */
export function openApiText(app: FastifyInstance): string {
  const doc = app.swagger() as unknown as { paths?: Record<string, unknown>; components?: { schemas?: Record<string, unknown> } };
  if (doc.paths) doc.paths = sortKeys(doc.paths);
  if (doc.components?.schemas) doc.components.schemas = sortKeys(doc.components.schemas);
  return `${JSON.stringify(doc, null, 2)}\n`;
}

export async function openApiDocumentText(): Promise<string> {
  const app = await buildDocumentedApp();
  try {
    return openApiText(app);
  } finally {
    await app.close();
  }
}

function sortKeys<T>(record: Record<string, T>): Record<string, T> {
  return Object.fromEntries(Object.keys(record).sort().map((key) => [key, record[key]]));
}

/** Any property or call gives itself back (never a thenable): enough for query builders made ahead. */
function inertDb(): Db {
  const inert: object = new Proxy(function () {}, {
    get: (_target, key) => (key === 'then' ? undefined : inert),
    apply: () => inert,
  });
  return inert as Db;
}
