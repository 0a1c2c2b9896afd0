import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { ModuleOptions } from '../module.js';
import { errors, IdParams, NoContent, Paginated } from '../../lib/schemas.js';
import { CreateRoleBody, ListPermissionsQuery, ListRolesQuery, PermissionSchema, RoleSchema, UpdateRoleBody } from './roles.schemas.js';
import { createRolesService } from './roles.service.js';

/** /api/roles: the tenant's roles and the permission catalog they are made from. */
export const rolesRoutes: FastifyPluginAsyncTypebox<ModuleOptions> = async (app, { db }) => {
  const roles = createRolesService({ db });
  const tags = ['roles'];

  app.get('/permissions', {
    config: { permission: 'roles:read' },
    schema: { tags, querystring: ListPermissionsQuery, response: { 200: Paginated(PermissionSchema), ...errors(400, 401, 403) } },
    handler: (request) => roles.listPermissions(request.query),
  });

  app.get('', {
    config: { permission: 'roles:read' },
    schema: { tags, querystring: ListRolesQuery, response: { 200: Paginated(RoleSchema), ...errors(400, 401, 403) } },
    handler: (request) => roles.listRoles(request.auth, request.query),
  });

  app.post('', {
    config: { permission: 'roles:write' },
    schema: { tags, body: CreateRoleBody, response: { 201: RoleSchema, ...errors(400, 401, 403, 409) } },
    handler: async (request, reply) => reply.status(201).send(await roles.createRole(request.auth, request.body)),
  });

  app.get('/:id', {
    config: { permission: 'roles:read' },
    schema: { tags, params: IdParams, response: { 200: RoleSchema, ...errors(400, 401, 403, 404) } },
    handler: (request) => roles.getRole(request.auth, request.params.id),
  });

  app.put('/:id', {
    config: { permission: 'roles:write' },
    schema: { tags, params: IdParams, body: UpdateRoleBody, response: { 200: RoleSchema, ...errors(400, 401, 403, 404, 409) } },
    handler: (request) => roles.updateRole(request.auth, request.params.id, request.body),
  });

  app.delete('/:id', {
    config: { permission: 'roles:write' },
    schema: { tags, params: IdParams, response: { 204: NoContent, ...errors(400, 401, 403, 404, 409) } },
    handler: async (request, reply) => {
      await roles.deleteRole(request.auth, request.params.id);
      return reply.status(204).send(null);
    },
  });
};
