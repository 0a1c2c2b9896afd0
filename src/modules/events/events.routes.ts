import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { ModuleOptions } from '../module.js';
import { errors, NoContent, Paginated } from '../../lib/schemas.js';
import { activitiesRoutes } from './activities.routes.js';
import { categoriesRoutes } from './categories.routes.js';
import { CreateEventBody, EventDetailSchema, EventParams, EventSchema, ListEventsQuery, UpdateEventBody } from './events.schemas.js';
import { createEventsService } from './events.service.js';
import { rostersRoutes } from './rosters.routes.js';

const tags = ['events'];

/** /api/events: events hosted by groups, their categories, registration, attendance and activities. */
export const eventsRoutes: FastifyPluginAsyncTypebox<ModuleOptions> = async (app, { db, config, mailer, auth }) => {
  // Only the module options go on: the prefix Fastify put among them must not apply twice.
  const options: ModuleOptions = { db, config, mailer, auth };
  const events = createEventsService(options);

  // Static paths (/categories) win over /:id in the router whatever the registration order.
  await app.register(categoriesRoutes, options);
  await app.register(rostersRoutes, options);
  await app.register(activitiesRoutes, options);

  app.get('', {
    config: { permission: 'events:read', readOnly: true },
    schema: { tags, querystring: ListEventsQuery, response: { 200: Paginated(EventSchema), ...errors(400, 401, 403) } },
    handler: (request) => events.list(request.auth, request.query),
  });

  app.post('', {
    config: { permission: 'events:write' },
    schema: { tags, body: CreateEventBody, response: { 201: EventSchema, ...errors(400, 401, 403, 404) } },
    handler: async (request, reply) => reply.status(201).send(await events.create(request.auth, request.body)),
  });

  app.get('/:id', {
    config: { permission: 'events:read', readOnly: true },
    schema: { tags, params: EventParams, response: { 200: EventDetailSchema, ...errors(400, 401, 403, 404) } },
    handler: (request) => events.get(request.auth, request.params.id),
  });

  app.put('/:id', {
    config: { permission: 'events:write' },
    schema: { tags, params: EventParams, body: UpdateEventBody, response: { 200: EventSchema, ...errors(400, 401, 403, 404) } },
    handler: (request) => events.update(request.auth, request.params.id, request.body),
  });

  app.delete('/:id', {
    config: { permission: 'events:write' },
    schema: { tags, params: EventParams, response: { 204: NoContent, ...errors(400, 401, 403, 404) } },
    handler: async (request, reply) => {
      await events.remove(request.auth, request.params.id);
      return reply.status(204).send(null);
    },
  });
};
