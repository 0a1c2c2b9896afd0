import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { ModuleOptions } from '../module.js';
import { errors, IdParams, NoContent, Paginated } from '../../lib/schemas.js';
import { CreateMembershipBody, ListMembershipsQuery, MembershipSchema, UpdateMembershipBody } from './groups.schemas.js';
import { createMembershipsService } from './memberships.service.js';

/** /api/groups/membership */
export const membershipsRoutes: FastifyPluginAsyncTypebox<ModuleOptions> = async (app, { db }) => {
  const service = createMembershipsService(db);
  const tags = ['groups'];

  app.get('/membership', {
    config: { permission: 'groups:read' },
    schema: { tags, querystring: ListMembershipsQuery, response: { 200: Paginated(MembershipSchema), ...errors(400, 401, 403) } },
    handler: (request) => service.list(request.auth, request.query),
  });

  app.post('/membership', {
    config: { permission: 'groups:write' },
    schema: { tags, body: CreateMembershipBody, response: { 201: MembershipSchema, ...errors(400, 401, 403, 404, 409) } },
    handler: async (request, reply) => reply.status(201).send(await service.create(request.auth, request.body)),
  });

  app.put('/membership/:id', {
    config: { permission: 'groups:write' },
    schema: { tags, params: IdParams, body: UpdateMembershipBody, response: { 200: MembershipSchema, ...errors(400, 401, 403, 404) } },
    handler: (request) => service.update(request.auth, request.params.id, request.body),
  });

  app.delete('/membership/:id', {
    config: { permission: 'groups:write' },
    schema: { tags, params: IdParams, response: { 204: NoContent, ...errors(400, 401, 403, 404) } },
    handler: async (request, reply) => {
      await service.remove(request.auth, request.params.id);
      return reply.status(204).send(null);
    },
  });
};
