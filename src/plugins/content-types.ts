import type { FastifyInstance, FastifyRequest, RouteOptions } from 'fastify';
import fp from 'fastify-plugin';
import { AppError } from '../lib/errors.js';

/** The media types a route's body may come in: those its schema lists per content type, else JSON. */
export function acceptedMediaTypes(route: Pick<RouteOptions, 'schema'>): string[] {
  const body = (route.schema as { body?: { content?: Record<string, unknown> } } | undefined)?.body;
  return body?.content ? Object.keys(body.content) : ['application/json'];
}

const mediaType = (request: FastifyRequest) => (request.headers['content-type'] ?? '').split(';')[0].trim().toLowerCase();

/**
 * api-contract §1: a body in a content type the route does not take is 415 in the error shape.
 * Fastify's own text/plain parser goes (no route takes plain text), so text/plain, forms and anything
 * else without a parser are 415 before the body is read; text/csv has a parser (the CSV imports), so
 * a route that does not list text/csv among its body's content types refuses it here.
 */
export const contentTypesPlugin = fp(async (app: FastifyInstance) => {
  app.removeContentTypeParser('text/plain');
  app.addHook('onRoute', (route) => {
    if (!route.schema?.body) return;
    const accepted = acceptedMediaTypes(route);
    if (accepted.includes('text/csv')) return;
    const refuseOtherTypes = async (request: FastifyRequest) => {
      const type = mediaType(request);
      if (request.body !== undefined && type !== '' && !accepted.includes(type)) {
        throw new AppError(415, `Unsupported content type ${type}: send ${accepted.join(' or ')}`);
      }
    };
    route.preValidation = [...(Array.isArray(route.preValidation) ? route.preValidation : route.preValidation ? [route.preValidation] : []), refuseOtherTypes];
  });
});
