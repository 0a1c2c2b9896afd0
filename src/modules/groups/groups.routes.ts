import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { ModuleOptions } from '../module.js';
import { errors, IdParams, NoContent, Paginated } from '../../lib/schemas.js';
import { categoriesRoutes } from './categories.routes.js';
import {
  ComboItem, ComboQuery, CreateGroupBody, GroupDetailSchema, GroupSchema, ListGroupsQuery, UpdateGroupBody,
} from './groups.schemas.js';
import { createGroupsService } from './groups.service.js';
import { importRoutes } from './import.routes.js';
import { membershipRequestsRoutes } from './membership-requests.routes.js';
import { membershipsRoutes } from './memberships.routes.js';

/**
 * /api/groups. The sub-resources (categories, membership, membership-request, combo, import) are
 * static segments, which the router always prefers over `/:id`.
 */
export const groupsRoutes: FastifyPluginAsyncTypebox<ModuleOptions> = async (app, options) => {
  const service = createGroupsService(options.db);
  const tags = ['groups'];

  // Not `options` itself: it carries this plugin's prefix, which the children would add again.
  const shared: ModuleOptions = { db: options.db, config: options.config, mailer: options.mailer, auth: options.auth };
  await app.register(categoriesRoutes, shared);
  await app.register(membershipsRoutes, shared);
  await app.register(membershipRequestsRoutes, shared);
  await app.register(importRoutes, shared);

  app.get('/combo', {
    config: { permission: 'groups:read', readOnly: true },
    schema: { tags, querystring: ComboQuery, response: { 200: Paginated(ComboItem), ...errors(400, 401, 403) } },
    handler: (request) => service.combo(request.auth, request.query),
  });

  app.get('', {
    config: { permission: 'groups:read', readOnly: true },
    schema: { tags, querystring: ListGroupsQuery, response: { 200: Paginated(GroupSchema), ...errors(400, 401, 403) } },
    handler: (request) => service.list(request.auth, request.query),
  });

  app.post('', {
    config: { permission: 'groups:write' },
    schema: { tags, body: CreateGroupBody, response: { 201: GroupSchema, ...errors(400, 401, 403, 404, 409) } },
    handler: async (request, reply) => reply.status(201).send(await service.create(request.auth, request.body)),
  });

  app.get('/:id', {
    config: { permission: 'groups:read', readOnly: true },
    schema: { tags, params: IdParams, response: { 200: GroupDetailSchema, ...errors(400, 401, 403, 404) } },
    handler: (request) => service.get(request.auth, request.params.id),
  });

  app.put('/:id', {
    config: { permission: 'groups:write' },
    schema: { tags, params: IdParams, body: UpdateGroupBody, response: { 200: GroupSchema, ...errors(400, 401, 403, 404, 409) } },
    handler: (request) => service.update(request.auth, request.params.id, request.body),
  });

  app.delete('/:id', {
    config: { permission: 'groups:write' },
    schema: { tags, params: IdParams, response: { 204: NoContent, ...errors(400, 401, 403, 404, 409) } },
    handler: async (request, reply) => {
      await service.remove(request.auth, request.params.id);
      return reply.status(204).send(null);
    },
  });
};
