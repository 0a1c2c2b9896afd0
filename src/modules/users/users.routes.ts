import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { ModuleOptions } from '../module.js';
import { errors, IdParams, NoContent, Paginated } from '../../lib/schemas.js';
import {
  ChangePasswordBody, CreateUserBody, InvitationSent, ListUsersQuery, MeSchema, UpdateUserBody, UserDetailSchema, UserSchema,
} from './users.schemas.js';
import { createUsersService } from './users.service.js';

/** /api/users: accounts of the caller's tenant, and the caller's own account under /me. */
export const usersRoutes: FastifyPluginAsyncTypebox<ModuleOptions> = async (app, { db, config, mailer }) => {
  const users = createUsersService({ db, config, mailer, log: app.log });
  const tags = ['users'];

  app.get('/me', {
    config: { authenticated: true },
    schema: { tags, response: { 200: MeSchema, ...errors(401) } },
    handler: (request) => users.getMe(request.auth),
  });

  app.put('/me/password', {
    config: { authenticated: true },
    schema: { tags, body: ChangePasswordBody, response: { 204: NoContent, ...errors(400, 401) } },
    handler: async (request, reply) => {
      await users.changeOwnPassword(request.auth, request.body);
      return reply.status(204).send(null);
    },
  });

  app.get('', {
    config: { permission: 'users:read' },
    schema: { tags, querystring: ListUsersQuery, response: { 200: Paginated(UserSchema), ...errors(400, 401, 403) } },
    handler: (request) => users.listUsers(request.auth, request.query),
  });

  app.post('', {
    config: { permission: 'users:write' },
    schema: { tags, body: CreateUserBody, response: { 201: UserDetailSchema, ...errors(400, 401, 403, 404, 409) } },
    handler: async (request, reply) => reply.status(201).send(await users.createUser(request.auth, request.body)),
  });

  app.get('/:id', {
    config: { permission: 'users:read' },
    schema: { tags, params: IdParams, response: { 200: UserDetailSchema, ...errors(400, 401, 403, 404) } },
    handler: (request) => users.getUser(request.auth, request.params.id),
  });

  app.put('/:id', {
    config: { permission: 'users:write' },
    schema: { tags, params: IdParams, body: UpdateUserBody, response: { 200: UserDetailSchema, ...errors(400, 401, 403, 404, 409) } },
    handler: (request) => users.updateUser(request.auth, request.params.id, request.body),
  });

  app.post('/:id/invitation', {
    config: { permission: 'users:write' },
    schema: { tags, params: IdParams, response: { 202: InvitationSent, ...errors(400, 401, 403, 404, 409) } },
    handler: async (request, reply) => reply.status(202).send(await users.resendInvitation(request.auth, request.params.id)),
  });

  app.delete('/:id', {
    config: { permission: 'users:write' },
    schema: { tags, params: IdParams, response: { 204: NoContent, ...errors(400, 401, 403, 404, 409) } },
    handler: async (request, reply) => {
      await users.deleteUser(request.auth, request.params.id);
      return reply.status(204).send(null);
    },
  });
};
