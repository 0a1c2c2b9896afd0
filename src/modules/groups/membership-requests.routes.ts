import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { ModuleOptions } from '../module.js';
import { errors, IdParams, Paginated } from '../../lib/schemas.js';
import { CreateMembershipRequestBody, ListMembershipRequestsQuery, MembershipRequestSchema } from './groups.schemas.js';
import { createMembershipRequestsService } from './membership-requests.service.js';

/** /api/groups/membership-request: the Pending → Approved | Rejected state table of the spec. */
export const membershipRequestsRoutes: FastifyPluginAsyncTypebox<ModuleOptions> = async (app, { db }) => {
  const service = createMembershipRequestsService(db);
  const tags = ['groups'];

  app.get('/membership-request', {
    config: { permission: 'groups:read' },
    schema: { tags, querystring: ListMembershipRequestsQuery, response: { 200: Paginated(MembershipRequestSchema), ...errors(400, 401, 403) } },
    handler: (request) => service.list(request.auth, request.query),
  });

  app.post('/membership-request', {
    config: { permission: 'groups:read' },
    schema: { tags, body: CreateMembershipRequestBody, response: { 201: MembershipRequestSchema, ...errors(400, 401, 403, 404, 409) } },
    handler: async (request, reply) => reply.status(201).send(await service.create(request.auth, request.body)),
  });

  // No body schema: approve and reject take no body (none, empty or {} are all fine).
  app.put('/membership-request/:id/approve', {
    config: { permission: 'groups:write' },
    schema: { tags, params: IdParams, response: { 200: MembershipRequestSchema, ...errors(400, 401, 403, 404, 409) } },
    handler: (request) => service.approve(request.auth, request.params.id),
  });

  app.put('/membership-request/:id/reject', {
    config: { permission: 'groups:write' },
    schema: { tags, params: IdParams, response: { 200: MembershipRequestSchema, ...errors(400, 401, 403, 404, 409) } },
    handler: (request) => service.reject(request.auth, request.params.id),
  });
};
