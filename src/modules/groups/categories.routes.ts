import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { ModuleOptions } from '../module.js';
import { errors, Paginated } from '../../lib/schemas.js';
import { createCategoriesService } from './categories.service.js';
import { CategoriesQuery, CategorySchema, CreateCategoryBody } from './groups.schemas.js';

/** /api/groups/categories */
export const categoriesRoutes: FastifyPluginAsyncTypebox<ModuleOptions> = async (app, { db }) => {
  const service = createCategoriesService(db);
  const tags = ['groups'];

  app.get('/categories', {
    config: { permission: 'groups:read' },
    schema: { tags, querystring: CategoriesQuery, response: { 200: Paginated(CategorySchema), ...errors(400, 401, 403) } },
    handler: (request) => service.list(request.auth, request.query),
  });

  app.post('/categories', {
    config: { permission: 'groups:write' },
    schema: { tags, body: CreateCategoryBody, response: { 201: CategorySchema, ...errors(400, 401, 403, 409) } },
    handler: async (request, reply) => reply.status(201).send(await service.create(request.auth, request.body)),
  });
};
