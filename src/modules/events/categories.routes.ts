import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { ModuleOptions } from '../module.js';
import { errors, Paginated } from '../../lib/schemas.js';
import { createCategoriesService } from './categories.service.js';
import { CreateEventCategoryBody, EventCategorySchema, PageOnlyQuery } from './events.schemas.js';

const tags = ['events'];

/** /api/events/categories: tenant-wide, so creating one needs hierarchy:all too. */
export const categoriesRoutes: FastifyPluginAsyncTypebox<ModuleOptions> = async (app, options) => {
  const categories = createCategoriesService(options);

  app.get('/categories', {
    config: { permission: 'events:read' },
    schema: { tags, querystring: PageOnlyQuery, response: { 200: Paginated(EventCategorySchema), ...errors(400, 401, 403) } },
    handler: (request) => categories.list(request.auth, request.query),
  });

  app.post('/categories', {
    config: { permission: 'events:write' },
    schema: { tags, body: CreateEventCategoryBody, response: { 201: EventCategorySchema, ...errors(400, 401, 403, 409) } },
    handler: async (request, reply) => reply.status(201).send(await categories.create(request.auth, request.body)),
  });
};
