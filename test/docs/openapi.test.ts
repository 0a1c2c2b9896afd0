import AjvCompiler from '@fastify/ajv-compiler';
import type { FastifyInstance } from 'fastify';
import fs from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RegisteredRoute } from '../../src/plugins/auth.js';
import { docKey, isApiRoute } from '../../src/plugins/docs.js';
import { API_DOCS } from '../../src/plugins/docs.registry.js';
import { buildDocumentedApp, openApiText } from '../../src/plugins/openapi-document.js';

/** Issue 18: every operation documented, and the committed openapi.json is what the code produces. No database needed. */
let app: FastifyInstance;
let text: string;
let doc: { paths: Record<string, Record<string, Operation>> };

interface Operation {
  summary?: string;
  description?: string;
  requestBody?: { content: Record<string, { example?: unknown }> };
  responses: Record<string, unknown>;
}

beforeAll(async () => {
  app = await buildDocumentedApp();
  text = openApiText(app);
  doc = JSON.parse(text);
});
afterAll(() => app?.close());

const operations = () => Object.entries(doc.paths).flatMap(([path, ops]) => Object.entries(ops).map(([method, op]) => ({ key: `${method.toUpperCase()} ${path}`, op })));
const apiRoutes = () => (app.registeredRoutes as RegisteredRoute[]).filter((r) => typeof r.method === 'string' && isApiRoute(r.method, r.url));

describe('openapi.json', () => {
  it('is what the code produces (else run `npm run openapi` and commit openapi.json)', () => {
    const committed = fs.existsSync('openapi.json') ? fs.readFileSync('openapi.json', 'utf8') : '';
    expect(committed === text, 'openapi.json is out of date: run `npm run openapi` and commit it').toBe(true);
  });
});

describe('every operation is documented', () => {
  it('has a summary, a permission note and its 4xx responses; paths have no trailing slash', () => {
    const problems: string[] = [];
    for (const { key, op } of operations()) {
      if (!op.summary?.trim()) problems.push(`${key}: no summary (add it to its module's <module>.docs.ts)`);
      if (!op.description?.startsWith('**Permission:**')) problems.push(`${key}: no permission note`);
      // Only the health check takes no input and no token: it declares its 503 instead.
      if (key !== 'GET /api/health' && !Object.keys(op.responses).some((code) => /^4\d\d$/.test(code))) problems.push(`${key}: no 4xx response declared`);
      if (op.requestBody && !op.responses['415']) problems.push(`${key}: has a body but no 415`);
      if (key.endsWith('/')) problems.push(`${key}: trailing slash`);
    }
    expect(problems).toEqual([]);
    expect(operations().length).toBeGreaterThan(150);
  });

  it('non-public operations declare 401, permissioned ones 403 naming the permission', () => {
    const problems: string[] = [];
    for (const route of apiRoutes()) {
      const op = doc.paths[route.url.replace(/:(\w+)/g, '{$1}')]?.[(route.method as string).toLowerCase()];
      if (!op) continue;
      if (!route.config?.public && !op.responses['401']) problems.push(`${route.method} ${route.url}: no 401`);
      if (route.config?.permission && !op.description?.includes(`\`${route.config.permission}\``)) problems.push(`${route.method} ${route.url}: permission not stated`);
      if (route.config?.permission && !op.responses['403']) problems.push(`${route.method} ${route.url}: no 403`);
    }
    expect(problems).toEqual([]);
  });

  it('every request body has an example, and the example is valid for the route\'s own body schema', () => {
    const compile = AjvCompiler()({}, { customOptions: { removeAdditional: false, useDefaults: true, coerceTypes: false, allErrors: false } });
    const problems: string[] = [];
    for (const route of apiRoutes()) {
      const body = (route.schema as { body?: Record<string, unknown> & { content?: Record<string, { schema: Record<string, unknown> }> } } | undefined)?.body;
      if (!body) continue;
      const schema = body.content?.['application/json']?.schema ?? body;
      const examples = schema.examples as unknown[] | undefined;
      const key = docKey(route.method as string, route.url);
      if (!examples?.length) {
        problems.push(`${key}: no body example`);
        continue;
      }
      const validate = compile({ schema, method: route.method as string, url: route.url, httpPart: 'body' } as never) as ((data: unknown) => boolean) & { errors?: unknown };
      const example = structuredClone(examples[0]);
      if (!validate(example)) problems.push(`${key}: example invalid: ${JSON.stringify(validate.errors)}`);
    }
    expect(problems).toEqual([]);
  });

  it('every docs entry names a route that exists (no stale prose)', () => {
    const keys = new Set(apiRoutes().map((r) => docKey(r.method as string, r.url)));
    expect(Object.keys(API_DOCS).filter((key) => !keys.has(key))).toEqual([]);
  });
});
