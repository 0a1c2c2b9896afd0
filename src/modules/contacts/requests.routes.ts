import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { ModuleOptions } from '../module.js';
import { errors, IdParams, NoContent, Paginated } from '../../lib/schemas.js';
import { RequestItem } from './contacts.schemas.js';
import { CreateRequestBody, ListRequestsQuery, UpdateRequestBody } from './requests.schemas.js';
import * as service from './requests.service.js';

/** /api/crm/requests: prayer and pastoral requests of contacts. */
export const requestsRoutes: FastifyPluginAsyncTypebox<ModuleOptions> = async (app, { db }) => {
  const tags = ['contacts'];
  const write = { permission: 'contacts:write' } as const;

  app.get('/requests', {
    config: { permission: 'contacts:read' },
    schema: { tags, querystring: ListRequestsQuery, response: { 200: Paginated(RequestItem), ...errors(400, 401, 403) } },
    handler: (request) => service.listRequests(db, request.auth, request.query),
  });

  app.post('/requests', {
    config: write,
    schema: { tags, body: CreateRequestBody, response: { 201: RequestItem, ...errors(400, 401, 403, 404) } },
    handler: async (request, reply) => reply.status(201).send(await service.createRequest(db, request.auth, request.body)),
  });

  app.put('/requests/:id', {
    config: write,
    schema: { tags, params: IdParams, body: UpdateRequestBody, response: { 200: RequestItem, ...errors(400, 401, 403, 404) } },
    handler: (request) => service.updateRequest(db, request.auth, request.params.id, request.body),
  });

  app.delete('/requests/:id', {
    config: write,
    schema: { tags, params: IdParams, response: { 204: NoContent, ...errors(400, 401, 403, 404) } },
    handler: async (request, reply) => {
      await service.deleteRequest(db, request.auth, request.params.id);
      return reply.status(204).send(null);
    },
  });
};
