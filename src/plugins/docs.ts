import swagger from '@fastify/swagger';
import swaggerUi from '@fastify/swagger-ui';
import type { FastifyInstance, RouteOptions } from 'fastify';
import fp from 'fastify-plugin';
import { STATUS_CODES } from 'node:http';
import { ErrorSchema } from '../lib/schemas.js';
import type { RouteAccess } from './auth.js';
import type { ModuleDocs, OperationDoc } from './operation-docs.js';

/** What every error status means when a route does not say more. */
const STANDARD_ERRORS: Record<number, string> = {
  400: 'Invalid input: the message names the field and the rule (a query parameter the operation does not declare is one)',
  401: 'Missing, invalid or expired access token',
  403: 'The caller lacks the permission',
  404: 'Not found, or not visible to the caller (another tenant\'s record is always 404)',
  409: 'Conflicts with the current state or a unique value',
  413: 'Request body is too large',
  429: 'Too many requests: retry after the seconds in Retry-After',
  503: 'Service unavailable',
};

const BODY_METHODS = new Set(['POST', 'PUT', 'PATCH']);

/** The error shape as one shared schema: the document shows it once (components.schemas.Error). */
const ERROR_SCHEMA_ID = 'Error';

type RouteSchema = {
  summary?: string;
  description?: string;
  params?: unknown;
  querystring?: unknown;
  body?: Record<string, unknown> & { content?: Record<string, { schema: Record<string, unknown> }> };
  response?: Record<string, unknown>;
};

/** The documentation key of a route: `METHOD /api/path/:param`. */
export const docKey = (method: string, url: string) => `${method} ${url}`;

/** The sentence every description starts with: what the caller needs. */
export function accessNote(access: RouteAccess | undefined): string {
  if (access?.permission) return `**Permission:** \`${access.permission}\`.`;
  if (access?.authenticated) return '**Permission:** authenticated (any signed-in user; no permission needed).';
  return '**Permission:** public (no token needed).';
}

/**
 * Merges an operation's doc into its route schema: summary, a description that opens with the
 * permission note, visibility and notable errors, a body example, and every error response the route
 * can give (the ones it declares, its notable ones, and those every route of its kind gives: 401 for
 * non-public routes, 403 with a permission, 400 on every route (its input, or a query parameter it
 * does not declare), 413 and 415 with a body).
 */
export function documentRoute(route: RouteOptions, doc: OperationDoc | undefined): void {
  const method = String(route.method);
  const access = route.config as RouteAccess | undefined;
  const schema = { ...(route.schema ?? {}) } as RouteSchema;

  const codes = new Set<number>(Object.keys(schema.response ?? {}).filter((c) => /^[45]\d\d$/.test(c)).map(Number));
  if (!access?.public) codes.add(401);
  if (access?.permission) codes.add(403);
  // Every route refuses a query parameter it does not declare (plugins/query-params.ts), input or not.
  codes.add(400);
  if (schema.body && BODY_METHODS.has(method)) codes.add(413).add(415);
  for (const code of Object.keys(doc?.errors ?? {})) codes.add(Number(code));

  // Success responses without a description of their own say their status ("Created", not "Default Response").
  const response = Object.fromEntries(Object.entries(schema.response ?? {})
    .filter(([code]) => !codes.has(Number(code)))
    .map(([code, body]) => [code, (body as { description?: string }).description ? body : { ...(body as object), description: STATUS_CODES[Number(code)] ?? 'Success' }]));
  for (const code of [...codes].sort()) response[code] = { $ref: `${ERROR_SCHEMA_ID}#`, description: errorReason(code, access, schema, doc) };
  schema.response = response;

  if (doc) {
    schema.summary = doc.summary;
    const notable = Object.entries(doc.errors ?? {}).map(([code, reason]) => `${code}: ${reason}.`);
    schema.description = [
      accessNote(access),
      schema.description && `${schema.description.replace(/\.?$/, '.')}`,
      doc.description,
      doc.visibility && `**Visibility:** ${doc.visibility}`,
      notable.length > 0 && `**Notable errors:** ${notable.join(' ')}`,
    ].filter(Boolean).join('\n\n');
    if (doc.example !== undefined && schema.body) schema.body = withExample(schema.body, doc.example);
  }
  route.schema = schema;
}

function errorReason(code: number, access: RouteAccess | undefined, schema: RouteSchema, doc: OperationDoc | undefined): string {
  const reason = doc?.errors?.[code];
  if (reason) return reason;
  if (code === 403 && access?.permission) return `The caller lacks the permission \`${access.permission}\``;
  if (code === 400 && !schema.params && !schema.querystring && !schema.body) return 'The operation takes no query parameters: one sent is refused, named in the message';
  if (code === 415) return `Unsupported content type: send ${Object.keys(schema.body?.content ?? { 'application/json': 0 }).join(' or ')}`;
  return STANDARD_ERRORS[code] ?? 'Error';
}

/**
 * The input schemas as the document shows them. A property with a default is optional to the client
 * (the server fills it in before checking `required`). A free-form querystring (a record, no
 * `properties`) has no OpenAPI form as parameters: the operation's doc names them (`query`), or it is
 * left out.
 */
function documentedInput(schema: RouteSchema, doc: OperationDoc | undefined): RouteSchema {
  const out = { ...schema };
  const query = schema.querystring as JsonObject | undefined;
  if (query && !query.properties) {
    delete out.querystring;
    if (doc?.query) out.querystring = doc.query;
  } else if (query) out.querystring = defaultsOptional(query);
  if (schema.body && !schema.body.content) out.body = defaultsOptional(schema.body as JsonObject) as RouteSchema['body'];
  return out;
}

type JsonObject = { properties?: Record<string, { default?: unknown }>; required?: string[] };

function defaultsOptional<T extends JsonObject>(schema: T): T {
  if (!schema.required || !schema.properties) return schema;
  const properties = schema.properties;
  const required = schema.required.filter((key) => properties[key]?.default === undefined);
  return required.length === schema.required.length ? schema : { ...schema, required };
}

/** The body schema with `examples` (Swagger shows the first); a per-content-type body gets it on its JSON form. */
function withExample(body: NonNullable<RouteSchema['body']>, example: unknown): NonNullable<RouteSchema['body']> {
  const json = body.content?.['application/json'];
  if (body.content && json) return { ...body, content: { ...body.content, 'application/json': { ...json, schema: { ...json.schema, examples: [example] } } } };
  return { ...body, examples: [example] };
}

/** Whether a route belongs in the documented API (not the docs UI's own routes, not HEAD). */
export function isApiRoute(method: string, url: string): boolean {
  return method !== 'HEAD' && url.startsWith('/api') && url !== '/api/docs' && !url.startsWith('/api/docs/');
}

/** OpenAPI document from the route schemas and the modules' docs (`docs`, keyed by `METHOD path`); Swagger UI at /api/docs (not registered in production). */
export const docsPlugin = fp(async (app: FastifyInstance, { docs }: { docs: ModuleDocs }) => {
  app.addSchema({ ...ErrorSchema, $id: ERROR_SCHEMA_ID, title: ERROR_SCHEMA_ID });
  app.addHook('onRoute', (route) => {
    // The docs are public (api-contract §4): mark the UI's routes so the auth hook skips them.
    if (route.url === '/api/docs' || route.url.startsWith('/api/docs/')) route.config = { ...(route.config ?? {}), public: true };
    else if (typeof route.method === 'string' && isApiRoute(route.method, route.url)) documentRoute(route, docs[docKey(route.method, route.url)]);
  });
  await app.register(swagger, {
    refResolver: { buildLocalReference: (json, _baseUri, _fragment, i) => String(json.$id ?? `def-${i}`) },
    transform: ({ schema, url, route }) => ({ schema: schema && (documentedInput(schema as RouteSchema, docs[docKey(String(route.method), url)]) as typeof schema), url }),
    openapi: {
      openapi: '3.0.3',
      info: {
        title: 'Parish API',
        version: '0.1.0',
        description: 'Multi-tenant church management service. Every operation states the permission it needs; ' +
          'errors are `{statusCode, message, error}`; lists are `{data, total, page, limit}`; ' +
          'a query parameter an operation does not declare is 400 naming it (a wrong guess is an error, not a wrong answer). ' +
          'Every POST that creates something takes an `Idempotency-Key` header (1–255 printable characters, per user): the same key and body ' +
          'within 24 hours replays the first answer (`Idempotent-Replayed: true`) without doing the work again; another body is 422; while the ' +
          'first still runs, 409. A stored answer is withdrawn when what it shows is gone (the thing it created was deleted through ' +
          '`DELETE …/:id`, or a person it shows was erased): the replay then answers 410 and the request is not run again.\n\n' +
          '**A token for "Authorize":** call `POST /api/auth/login` (public: open it below, "Try it out") with ' +
          '`{"churchName": "<the church\'s slug, e.g. demo>", "username": "…", "password": "…"}`, copy `accessToken` from ' +
          'the answer, click **Authorize** and paste it (without `Bearer `). It lasts 15 minutes; `POST /api/auth/refresh` ' +
          'with the `refreshToken` gives a new pair. A first start prints the demo church\'s admin password once; ' +
          '`npm run parish -- user reset-password --tenant demo --username admin` sets a new one.',
      },
      components: { securitySchemes: { bearer: { type: 'http', scheme: 'bearer', bearerFormat: 'JWT' } } },
      security: [{ bearer: [] }],
    },
  });
  await app.register(swaggerUi, { routePrefix: '/api/docs', uiConfig: { docExpansion: 'list' } });
});
