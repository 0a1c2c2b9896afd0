import type { FastifyInstance } from 'fastify';
import fp from 'fastify-plugin';
import { toHttpError } from '../lib/http-errors.js';

/** The one error handler, the 404 handler, and a JSON parser that trims strings and refuses NUL. */
export const errorsPlugin = fp(async (app: FastifyInstance) => {
  app.setErrorHandler((err, request, reply) => {
    const body = toHttpError(err);
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
      done(null, JSON.parse(body as string, cleanJsonValue));
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

/**
 * api-contract §1: strings are trimmed and may not contain NUL; `__proto__` keys are dropped.
 * Passwords are the exception to trimming: a space there is part of the secret.
 */
function cleanJsonValue(this: unknown, key: string, value: unknown): unknown {
  if (key === '__proto__') return undefined;
  if (key.includes('\u0000')) throw new NulError();
  if (typeof value !== 'string') return value;
  if (value.includes('\u0000')) throw new NulError();
  return /password/i.test(key) ? value : value.trim();
}
