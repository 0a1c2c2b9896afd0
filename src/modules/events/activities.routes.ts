import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { ModuleOptions } from '../module.js';
import { errors, Paginated } from '../../lib/schemas.js';
import { createActivitiesService } from './activities.service.js';
import { ActivitySchema, CreateActivityBody, EventParams, PageOnlyQuery } from './events.schemas.js';

const tags = ['events'];

/** /api/events/:id/activities: what happened for whom (a salvation, a baptism, ...). */
export const activitiesRoutes: FastifyPluginAsyncTypebox<ModuleOptions> = async (app, options) => {
  const activities = createActivitiesService(options);

  app.get('/:id/activities', {
    config: { permission: 'events:read' },
    schema: { tags, params: EventParams, querystring: PageOnlyQuery, response: { 200: Paginated(ActivitySchema), ...errors(400, 401, 403, 404) } },
    handler: (request) => activities.list(request.auth, request.params.id, request.query),
  });

  app.post('/:id/activities', {
    config: { permission: 'events:write' },
    schema: { tags, params: EventParams, body: CreateActivityBody, response: { 201: ActivitySchema, ...errors(400, 401, 403, 404) } },
    handler: async (request, reply) => reply.status(201).send(await activities.create(request.auth, request.params.id, request.body)),
  });
};
