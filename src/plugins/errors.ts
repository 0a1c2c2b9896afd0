import AjvCompiler from '@fastify/ajv-compiler';
import type { FastifyError, FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import fp from 'fastify-plugin';
import { TooManyRequestsError } from '../lib/errors.js';
import { toHttpError } from '../lib/http-errors.js';
import { compileOnFirstUse } from './compilers.js';

const AJV_OPTIONS = { removeAdditional: true, useDefaults: true, allErrors: false } as const;
const buildCompiler = AjvCompiler();
/** Path and query values arrive as text: "5" must become 5 there. */
const coercingCompiler = buildCompiler({}, { customOptions: { ...AJV_OPTIONS, coerceTypes: 'array' } });
/** JSON bodies carry real types: 42 for a string or ["x"] for a string is a 400, not coerced. */
const strictCompiler = buildCompiler({}, { customOptions: { ...AJV_OPTIONS, coerceTypes: false } });

type RouteSchema = { schema: { properties?: Record<string, { type?: unknown; items?: { type?: unknown } }> }; httpPart?: string };

/** Digits only, with an optional minus: what a path or query integer may look like as text. */
const DECIMAL = /^-?[0-9]+$/;

/**
 * Path and query integers (ids above all) are decimal digits. Ajv coerces with Number(), which also
 * reads 0x10, 0b11, 1e1, +16, 16.0 and " 16" (%2016) as 16: each such text is a 400 here, before coercion.
 */
function compileCoercing(route: RouteSchema) {
  const validate = coercingCompiler(route as never) as ((data: unknown) => unknown) & { errors?: unknown };
  const props = route.schema?.properties ?? {};
  const integers = Object.keys(props).filter((k) => props[k].type === 'integer' || (props[k].type === 'array' && props[k].items?.type === 'integer'));
  if (integers.length === 0) return validate;
  const checked = (data: unknown) => {
    const values = (data ?? {}) as Record<string, unknown>;
    for (const key of integers) {
      const value = values[key];
      for (const text of Array.isArray(value) ? value : [value]) {
        if (typeof text === 'string' && !DECIMAL.test(text)) {
          const issue = { keyword: 'type', instancePath: `/${key}`, message: 'must be a decimal integer (digits only)', params: {} };
          return { error: Object.assign(new Error(`${route.httpPart}/${key} must be a decimal integer`), { validation: [issue], validationContext: route.httpPart }) };
        }
      }
    }
    const valid = validate(data);
    // Fastify reads a failed validation's errors from the function it called.
    checked.errors = validate.errors;
    return valid;
  };
  checked.errors = undefined as unknown;
  return checked;
}

/** The one error handler, the 404 handler, and a JSON parser that trims strings and refuses NUL. */
export const errorsPlugin = fp(async (app: FastifyInstance) => {
  app.setValidatorCompiler((route) =>
    compileOnFirstUse(() => (route.httpPart === 'body' ? strictCompiler(route as never) : compileCoercing(route as never)) as (data: never) => unknown) as never,
  );

  app.setErrorHandler((err, request, reply) => {
    const body = toHttpError(err);
    if (err instanceof TooManyRequestsError) reply.header('retry-after', String(err.retryAfterSeconds));
    if (body.statusCode >= 500) request.log.error({ err, reqId: request.id }, 'request failed');
    else request.log.debug({ err }, 'request rejected');
    return reply.status(body.statusCode).send(body);
  });

  app.setNotFoundHandler((request, reply) =>
    reply.status(404).send({ statusCode: 404, message: `Route ${request.method} ${request.url.split('?')[0]} not found`, error: 'Not Found' }),
  );

  app.removeContentTypeParser('application/json');
  app.addContentTypeParser('application/json', { parseAs: 'string' }, (_request, body, done) => {
    if (body === '') return done(null, undefined);
    try {
      done(null, trimStrings(JSON.parse(body as string, refuseUnsafe)));
    } catch (err) {
      const error = err instanceof NulError ? err : Object.assign(new Error('Body is not valid JSON'), { statusCode: 400 });
      done(error, undefined);
    }
  });
  // CSV imports arrive as text; the import modules parse them with csv-parse.
  app.addContentTypeParser('text/csv', { parseAs: 'string' }, (_request, body, done) => done(null, body));
});

class NulError extends Error {
  statusCode = 400;
  constructor() {
    super('Strings must not contain NUL characters');
  }
}

/** api-contract §1: no NUL anywhere; `__proto__` keys are dropped. */
function refuseUnsafe(key: string, value: unknown): unknown {
  if (key === '__proto__') return undefined;
  if (key.includes('\u0000') || (typeof value === 'string' && value.includes('\u0000'))) throw new NulError();
  return value;
}

/**
 * api-contract §1: strings are trimmed — except passwords (a space there is part of the secret) and
 * free-form `metaData`, which is returned exactly as it was sent.
 */
function trimStrings(value: unknown): unknown {
  if (typeof value === 'string') return value.trim();
  if (Array.isArray(value)) return value.map(trimStrings);
  if (value !== null && typeof value === 'object') {
    const record = value as Record<string, unknown>;
    for (const key of Object.keys(record)) {
      if (key !== 'metaData' && !/password/i.test(key)) record[key] = trimStrings(record[key]);
    }
  }
  return value;
}

/**
 * For Fastify's `frameworkErrors` option (errors raised before routing, e.g. a malformed URL
 * encoding or an over-long path parameter): the same error shape as everything else.
 */
export function frameworkErrors(err: FastifyError, _request: FastifyRequest, reply: FastifyReply) {
  const body = toHttpError(err);
  return reply.status(body.statusCode).send(body);
}
