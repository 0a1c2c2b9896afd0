import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { errors, IdParams, NoContent, Paginated } from '../../lib/schemas.js';
import type { ModuleOptions } from '../module.js';
import {
  CreateHouseholdBody, HouseholdSchema, ListHouseholdsQuery, MemberInput, MemberParams, UpdateHouseholdBody, UpdateMemberBody,
} from './households.schemas.js';
import { createHouseholdsService } from './households.service.js';

const tags = ['households'];
const read = { permission: 'contacts:read', readOnly: true } as const;
const write = { permission: 'contacts:write' } as const;

/** /api/crm/households (modules-contract §8): households and their members (tenant-wide, like contacts). */
export const householdsRoutes: FastifyPluginAsyncTypebox<ModuleOptions> = async (app, { db }) => {
  const households = createHouseholdsService(db);

  app.get('', {
    config: read,
    schema: { tags, querystring: ListHouseholdsQuery, response: { 200: Paginated(HouseholdSchema), ...errors(400, 401, 403) } },
    handler: (request) => households.list(request.auth, request.query),
  });
  app.post('', {
    config: write,
    schema: { tags, body: CreateHouseholdBody, response: { 201: HouseholdSchema, ...errors(400, 401, 403, 404, 409) } },
    handler: async (request, reply) => reply.status(201).send(await households.create(request.auth, request.body)),
  });
  app.get('/:id', {
    config: read,
    schema: { tags, params: IdParams, response: { 200: HouseholdSchema, ...errors(400, 401, 403, 404) } },
    handler: (request) => households.get(request.auth, request.params.id),
  });
  app.put('/:id', {
    config: write,
    schema: { tags, params: IdParams, body: UpdateHouseholdBody, response: { 200: HouseholdSchema, ...errors(400, 401, 403, 404) } },
    handler: (request) => households.update(request.auth, request.params.id, request.body),
  });
  app.delete('/:id', {
    config: write,
    schema: { tags, params: IdParams, response: { 204: NoContent, ...errors(400, 401, 403, 404) } },
    handler: async (request, reply) => {
      await households.remove(request.auth, request.params.id);
      return reply.status(204).send(null);
    },
  });
  app.post('/:id/members', {
    config: write,
    schema: { tags, params: IdParams, body: MemberInput, response: { 201: HouseholdSchema, ...errors(400, 401, 403, 404, 409) } },
    handler: async (request, reply) => reply.status(201).send(await households.addMember(request.auth, request.params.id, request.body)),
  });
  app.put('/:id/members/:contactId', {
    config: write,
    schema: { tags, params: MemberParams, body: UpdateMemberBody, response: { 200: HouseholdSchema, ...errors(400, 401, 403, 404) } },
    handler: (request) => households.updateMember(request.auth, request.params.id, request.params.contactId, request.body.role),
  });
  app.delete('/:id/members/:contactId', {
    config: write,
    schema: { tags, params: MemberParams, response: { 204: NoContent, ...errors(400, 401, 403, 404) } },
    handler: async (request, reply) => {
      await households.removeMember(request.auth, request.params.id, request.params.contactId);
      return reply.status(204).send(null);
    },
  });
};
