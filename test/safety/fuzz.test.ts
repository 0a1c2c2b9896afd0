import { Ajv, type ValidateFunction } from 'ajv';
import formats from 'ajv-formats';
import { sql } from 'drizzle-orm';
import fc from 'fast-check';
import { beforeAll, describe, expect, it } from 'vitest';
import { setupTestApp } from '../helpers/app.js';
import { fromSchema, idArb, validAtBounds, junk, type IdPool, type Schema } from './arbitraries.js';
import { fixtureTenant, type FixtureTenant } from './fixtures.js';
import { requestOf, ROUTES } from './route-table.js';

/**
 * Fuzzing every operation of the OpenAPI document (issue 19) as the admin of tenant A: generated
 * path, query and body values (valid, boundary, invalid, huge, deep, NUL, unicode, tenant B's ids).
 * Properties: never a 5xx; every error in the contract's shape; a 2xx body valid against the
 * declared response schema; a 4xx writes nothing. Seeded (FUZZ_SEED, default fixed); FUZZ_RUNS
 * requests per operation (default 6; raise it for long runs).
 */
const ctx = setupTestApp();
const RUNS = Number(process.env.FUZZ_RUNS ?? 6);
const SEED = Number(process.env.FUZZ_SEED ?? 19_2026);
let a: FixtureTenant;
let b: FixtureTenant;
let pool: IdPool;
/** The pool plus tenant A's fixtures by name, for fields that name one (contactId → the fixture contact). */
let named: IdPool & { named: Record<string, number> };
let sent = 0;
const statuses: Record<string, number> = {};
const fiveHundreds: string[] = [];

type Operation = {
  parameters?: { in: string; name: string; required?: boolean; schema: Schema }[];
  requestBody?: { content: Record<string, { schema: Schema }> };
  responses: Record<string, { content?: Record<string, { schema: Schema }> }>;
};
interface Request { method: string; url: string; payload?: unknown }

const ajv = new Ajv({ strict: false, allErrors: false, validateFormats: true });
// ajv-formats is CommonJS: its default export is the plugin under node, or its module object.
(((formats as unknown as { default?: unknown }).default ?? formats) as unknown as (a: Ajv) => void)(ajv);
const validators = new WeakMap<Schema, ValidateFunction>();
/** Schemas may point into the document's components (`#/components/schemas/...`): compiled with them at the root. */
function validatorFor(schema: Schema, components: unknown): ValidateFunction {
  const v = validators.get(schema) ?? ajv.compile({ ...schema, components });
  validators.set(schema, v);
  return v;
}

/** What a 4xx must leave as it was: the tenant's change count and the row counts of its main tables. */
const TABLES = ['changes', 'contacts', 'groups', 'group_memberships', 'group_membership_requests', 'events', 'event_registrations', 'attendance_records',
  'attendance_sessions', 'contributions', 'pledges', 'funds', 'batches', 'tasks', 'pipeline_cards', 'roles', 'users', 'saved_lists', 'webhooks',
  'message_templates', 'messages', 'report_templates', 'report_submissions', 'contact_relationships', 'contact_requests', 'jobs'];
async function fingerprint(tenantId: number): Promise<string> {
  const res = await ctx.db.execute(sql.raw(`select ${TABLES.map((t) => `(select count(*) from ${t} where tenant_id = ${tenantId})`).join(` || ',' || `)} as f`));
  return String((res as unknown as { rows: { f: string }[] }).rows[0].f);
}

/** A lone surrogate cannot be put in a URL (encodeURIComponent throws): it goes as U+FFFD, as a browser sends it. */
const wellFormed = (s: string) => s.replace(/[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/g, '\uFFFD');

function encodePath(pattern: string, params: Record<string, unknown>): string {
  return pattern.replace(/\{(\w+)\}/g, (_, name: string) => encodeURIComponent(wellFormed(typeof params[name] === 'string' ? (params[name] as string) : JSON.stringify(params[name]))));
}

function queryString(query: Record<string, unknown>): string {
  const search = new URLSearchParams();
  for (const [k, v] of Object.entries(query)) {
    if (v === undefined) continue;
    for (const item of Array.isArray(v) ? v : [v]) search.append(k, typeof item === 'string' ? item : JSON.stringify(item));
  }
  const s = search.toString();
  return s ? `?${s}` : '';
}

/** `GET /api/x/{id}` as the route table writes it: `GET /api/x/:id`. */
const routeOf = (path: string, method: string) => `${method.toUpperCase()} ${path.replace(/\{(\w+)\}/g, ':$1')}`;

/** The arbitrary of one operation's requests; the route table's valid request is one of its choices. */
function requestArb(path: string, method: string, op: Operation): fc.Arbitrary<Request> {
  const entry = ROUTES[routeOf(path, method)];
  const params = (op.parameters ?? []).filter((p) => p.in === 'path');
  const query = (op.parameters ?? []).filter((p) => p.in === 'query');
  const pathArbs: Record<string, fc.Arbitrary<unknown>> = {};
  for (const p of params) {
    const known = entry?.params?.[p.name];
    const own = typeof known === 'string' ? a.ids[known] : known?.value;
    pathArbs[p.name] = fc.oneof(
      { weight: 3, arbitrary: own !== undefined ? fc.constant(own) : fromSchema(p.schema, pool, p.name) },
      { weight: 2, arbitrary: p.schema.type === 'integer' ? idArb(pool) : fromSchema(p.schema, pool, p.name) },
      { weight: 1, arbitrary: fc.constantFrom('abc', '-1', '1.5', '0', '99999999999999999999', '%00', '1e3', ' 1') },
    );
  }
  const queryArbs: Record<string, fc.Arbitrary<unknown>> = {};
  for (const p of query) queryArbs[p.name] = fromSchema(p.schema, pool, p.name);
  const json = op.requestBody?.content['application/json']?.schema;
  const valid = entry?.body?.(a.ids);
  const bodyArb: fc.Arbitrary<unknown> = json
    ? fc.oneof({ weight: 5, arbitrary: fromSchema(json, pool) }, { weight: 2, arbitrary: fc.constant(valid ?? {}) }, { weight: 1, arbitrary: junk() })
    : fc.constant(undefined);
  return fc
    .record({ path: fc.record(pathArbs), query: fc.record(queryArbs, { requiredKeys: [] }), body: bodyArb })
    .map(({ path: p, query: q, body }) => ({ method: method.toUpperCase(), url: encodePath(path, p) + queryString(q), payload: body }));
}

/**
 * Valid requests at their bounds: the route table's own path ids, every query parameter and body
 * field present and at one of its limits, combined at random (arbitraries.ts atBounds).
 */
function boundsRequestArb(path: string, method: string, op: Operation): fc.Arbitrary<Request> {
  const route = routeOf(path, method);
  const { url } = requestOf(route, ROUTES[route], a.ids);
  const base = url.split('?')[0];
  const queryArbs: Record<string, fc.Arbitrary<unknown>> = {};
  for (const p of (op.parameters ?? []).filter((q) => q.in === 'query')) queryArbs[p.name] = validAtBounds({ type: 'object', properties: { [p.name]: p.schema } }, named).map((o) => (o as Record<string, unknown>)[p.name]);
  const json = op.requestBody?.content['application/json']?.schema;
  return fc
    .record({ query: fc.record(queryArbs), body: json ? validAtBounds(json, named) : fc.constant(undefined) })
    .map(({ query, body }) => ({ method: method.toUpperCase(), url: base + queryString(query), payload: body }));
}

/**
 * Runs the property (check) over every operation of the OpenAPI document that `arbitraryOf` gives
 * requests for, each with its own seed; the failures name the operation and what broke.
 */
async function overOperations(arbitraryOf: (path: string, method: string, op: Operation) => fc.Arbitrary<Request> | undefined) {
  const doc = ctx.app.swagger() as unknown as { paths: Record<string, Record<string, Operation>>; components?: unknown };
  const failures: string[] = [];
  let operations = 0;
  for (const [path, ops] of Object.entries(doc.paths)) {
    if (path.startsWith('/api/docs')) continue;
    for (const [method, op] of Object.entries(ops)) {
      const arbitrary = arbitraryOf(path, method, op);
      if (!arbitrary) continue;
      operations++;
      try {
        await fc.assert(fc.asyncProperty(arbitrary, async (req) => { await check(op, req, doc.components); }), { seed: SEED + operations, numRuns: RUNS, endOnFailure: true });
      } catch (err) {
        failures.push(`${routeOf(path, method)}: ${(err as Error).message.split('\n').find((l) => /5xx|shape|schema|wrote|undeclared/.test(l)) ?? (err as Error).message.slice(0, 500)}`);
      }
    }
  }
  return { operations, failures };
}

async function check(op: Operation, req: Request, components: unknown): Promise<number> {
  const before = req.method === 'GET' ? undefined : await fingerprint(a.tenant.id);
  const res = await ctx.app.inject({
    method: req.method as 'GET',
    url: req.url,
    ...(req.payload === undefined ? {} : { payload: JSON.stringify(req.payload), headers: { 'content-type': 'application/json', authorization: `Bearer ${a.tenant.admin.token}` } }),
    ...(req.payload === undefined ? { headers: { authorization: `Bearer ${a.tenant.admin.token}` } } : {}),
  });
  sent++;
  const klass = `${String(res.statusCode)[0]}xx`;
  statuses[klass] = (statuses[klass] ?? 0) + 1;
  const where = `${req.method} ${req.url} ${JSON.stringify(req.payload)?.slice(0, 300)} → ${res.statusCode} ${res.body.slice(0, 300)}`;
  if (res.statusCode >= 500) {
    fiveHundreds.push(where);
    throw new Error(`5xx: ${where}`);
  }
  if (res.statusCode >= 400) {
    const body = res.json();
    if (Object.keys(body).sort().join() !== 'error,message,statusCode' || body.statusCode !== res.statusCode || typeof body.message !== 'string') {
      throw new Error(`error shape: ${where}`);
    }
    if (before !== undefined && (await fingerprint(a.tenant.id)) !== before) throw new Error(`a ${res.statusCode} wrote: ${where}`);
    return res.statusCode;
  }
  const declared = op.responses[String(res.statusCode)];
  if (!declared) throw new Error(`undeclared status: ${where}`);
  const schema = declared.content?.['application/json']?.schema;
  if (!schema || !String(res.headers['content-type'] ?? '').startsWith('application/json')) return res.statusCode;
  const validate = validatorFor(schema, components);
  if (!validate(res.json())) throw new Error(`response schema: ${ajv.errorsText(validate.errors)}: ${where}`);
  return res.statusCode;
}

/** Inputs that once answered 5xx, kept as fixed cases (method, path with the route table's ids, body). */
const REGRESSIONS: { route: string; url?: string; body?: unknown; status?: number }[] = [
  // Found by the bounds property: a period before 0001-01-01 (year 0) and week slots of years below 1000.
  { route: 'GET /api/finance/summary', url: '/api/finance/summary?from=0001-01-01&to=0001-01-01&interval=week', status: 200 },
  { route: 'GET /api/dashboard', url: '/api/dashboard?from=0001-01-01&to=0001-01-01', status: 200 },
  // A NUL in a query value: a streamed CSV export answered 500 (its headers already sent).
  { route: 'GET /api/finance/contributions/export', url: '/api/finance/contributions/export?q=%00', status: 400 },
  // A window ending 9999-12-31 (no next period; five years on is past the calendar).
  { route: 'GET /api/finance/summary', url: '/api/finance/summary?from=9999-12-31&to=9999-12-31&interval=month', status: 200 },
  { route: 'GET /api/dashboard', url: '/api/dashboard?from=9999-12-31&to=9999-12-31', status: 200 },
];

beforeAll(async () => {
  a = await fixtureTenant(ctx);
  b = await fixtureTenant(ctx);
  pool = { own: Object.values(a.ids), foreign: Object.values(b.ids) };
  named = { ...pool, named: a.ids as unknown as Record<string, number> };
});

describe('fuzzing every operation of the OpenAPI document', () => {
  it('the regression cases answer without a 5xx', async () => {
    const doc = ctx.app.swagger() as unknown as { paths: Record<string, Record<string, Operation>>; components?: unknown };
    for (const r of REGRESSIONS) {
      const { method, url } = requestOf(r.route, ROUTES[r.route], a.ids);
      const op = doc.paths[r.route.split(' ')[1].replace(/:(\w+)/g, '{$1}')][method.toLowerCase()];
      const status = await check(op, { method, url: r.url ?? url, payload: r.body }, doc.components);
      if (r.status) expect(status, r.url).toBe(r.status);
    }
  });

  it('never a 5xx, errors in the error shape, 2xx bodies as declared, nothing written on a 4xx', async () => {
    const { operations, failures } = await overOperations(requestArb);
    console.log(`fuzz: ${sent} requests over ${operations} operations (seed ${SEED}, ${RUNS} runs each), ${fiveHundreds.length} answered 5xx; ${JSON.stringify(statuses)}`);
    expect(operations).toBeGreaterThan(150);
    expect(failures).toEqual([]);
  }, 600_000);

  it('valid fields at their bounds, combined: never a 5xx, errors in the error shape, nothing written on a 4xx', async () => {
    // Operations with inputs (a query or a JSON body) and a route table entry to take their path ids from.
    const { operations, failures } = await overOperations((path, method, op) => {
      const hasInputs = op.requestBody?.content['application/json'] || (op.parameters ?? []).some((p) => p.in === 'query');
      return hasInputs && ROUTES[routeOf(path, method)] ? boundsRequestArb(path, method, op) : undefined;
    });
    console.log(`fuzz at bounds: ${operations} operations (${RUNS} runs each)`);
    expect(operations).toBeGreaterThan(100);
    expect(failures).toEqual([]);
  }, 600_000);
});
