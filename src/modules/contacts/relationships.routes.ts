import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { ModuleOptions } from '../module.js';
import { errors, IdParams, NoContent, Paginated } from '../../lib/schemas.js';
import { RelationshipItem } from './contacts.schemas.js';
import { CreateRelationshipBody, ListRelationshipsQuery } from './relationships.schemas.js';
import * as service from './relationships.service.js';

/** /api/crm/relationships: each relationship is stored with its inverse. */
export const relationshipsRoutes: FastifyPluginAsyncTypebox<ModuleOptions> = async (app, { db }) => {
  const tags = ['contacts'];

  app.get('/relationships', {
    config: { permission: 'contacts:read' },
    schema: { tags, querystring: ListRelationshipsQuery, response: { 200: Paginated(RelationshipItem), ...errors(400, 401, 403) } },
    handler: (request) => service.listRelationships(db, request.auth, request.query),
  });

  app.post('/relationships', {
    config: { permission: 'contacts:write' },
    schema: { tags, body: CreateRelationshipBody, response: { 201: RelationshipItem, ...errors(400, 401, 403, 404, 409) } },
    handler: async (request, reply) => reply.status(201).send(await service.createRelationship(db, request.auth, request.body)),
  });

  app.delete('/relationships/:id', {
    config: { permission: 'contacts:write' },
    schema: { tags, params: IdParams, response: { 204: NoContent, ...errors(400, 401, 403, 404) } },
    handler: async (request, reply) => {
      await service.deleteRelationship(db, request.auth, request.params.id);
      return reply.status(204).send(null);
    },
  });
};
