import type { FastifyInstance, FastifyRequest } from 'fastify';
import fp from 'fastify-plugin';
import { BadRequestError } from '../lib/errors.js';

type QuerySchema = { properties?: Record<string, unknown>; patternProperties?: unknown; additionalProperties?: unknown; allOf?: QuerySchema[]; anyOf?: QuerySchema[] };

/**
 * The query parameters a route's querystring schema declares; `undefined` for a free-form one (a
 * record, as GET /api/reports/:key takes: its handler checks the names itself). No schema declares none.
 */
export function declaredQueryParameters(schema: QuerySchema | undefined): Set<string> | undefined {
  if (!schema) return new Set();
  const parts = schema.allOf ?? schema.anyOf;
  if (parts) {
    const names = parts.map(declaredQueryParameters);
    return names.some((n) => n === undefined) ? undefined : new Set(names.flatMap((n) => [...n!]));
  }
  if (schema.patternProperties || (schema.additionalProperties !== undefined && schema.additionalProperties !== false)) return undefined;
  return new Set(Object.keys(schema.properties ?? {}));
}

const isDocsUi = (url: string) => url === '/api/docs' || url.startsWith('/api/docs/');

/**
 * A query parameter the operation does not declare is 400 naming it, on every API route (issue 31):
 * `GET /api/attendance/sessions?date=…` must not quietly answer every session. A value holding a NUL
 * character is 400 too (PostgreSQL refuses NUL in text, and a streamed export had already begun). Checked before
 * validation, since the validator's removeAdditional would only drop it; bodies keep their rule
 * (unknown properties are stripped, api-contract §1).
 */
export const queryParamsPlugin = fp(async (app: FastifyInstance) => {
  app.addHook('onRoute', (route) => {
    if (!route.url.startsWith('/api') || isDocsUi(route.url)) return;
    const declared = declaredQueryParameters((route.schema as { querystring?: QuerySchema } | undefined)?.querystring);
    if (!declared) return;
    const operation = `${Array.isArray(route.method) ? route.method.join('|') : route.method} ${route.url}`;
    const refuseUndeclared = async (request: FastifyRequest) => {
      for (const [name, value] of Object.entries(request.query as Record<string, unknown>)) {
        if (!declared.has(name)) throw new BadRequestError(`querystring/${name} is not a parameter of ${operation}`);
        // No text the database keeps or compares may hold NUL (PostgreSQL refuses it mid-query).
        if ([value].flat().some((v) => typeof v === 'string' && v.includes('\u0000'))) throw new BadRequestError(`querystring/${name} must not contain NUL characters`);
      }
    };
    route.preValidation = [refuseUndeclared, ...(Array.isArray(route.preValidation) ? route.preValidation : route.preValidation ? [route.preValidation] : [])];
  });
});
