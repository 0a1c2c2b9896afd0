import type { FastifyInstance, FastifyRequest } from 'fastify';
import fp from 'fastify-plugin';

type BodySchema = { type?: string; required?: string[] };

/**
 * A body whose every property is optional may be left out: `PUT /api/finance/batches/7/close` with no
 * body is the same as `{}` (no force), not "body must be object". A body that is there must still be
 * an object.
 */
export const optionalBodyPlugin = fp(async (app: FastifyInstance) => {
  app.addHook('onRoute', (route) => {
    const body = (route.schema as { body?: BodySchema } | undefined)?.body;
    if (!route.url.startsWith('/api') || !body || body.type !== 'object' || (body.required?.length ?? 0) > 0) return;
    const emptyIsNone = async (request: FastifyRequest) => {
      if (request.body === undefined) request.body = {};
    };
    route.preValidation = [emptyIsNone, ...(Array.isArray(route.preValidation) ? route.preValidation : route.preValidation ? [route.preValidation] : [])];
  });
});
