import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { ModuleOptions } from '../module.js';
import { errors, NoContent, Paginated } from '../../lib/schemas.js';
import {
  AttendanceParams, AttendanceSchema, ContactIdsBody, CreatedResult, EventParams, PageOnlyQuery, RegistrationParams, RegistrationSchema,
} from './events.schemas.js';
import { createRostersService } from './rosters.service.js';

const tags = ['events'];

/** /api/events/:id/registration and /api/events/:id/attendance. */
export const rostersRoutes: FastifyPluginAsyncTypebox<ModuleOptions> = async (app, options) => {
  const { registrations, attendance } = createRostersService(options);

  app.get('/:id/registration', {
    config: { permission: 'events:read' },
    schema: { tags, params: EventParams, querystring: PageOnlyQuery, response: { 200: Paginated(RegistrationSchema), ...errors(400, 401, 403, 404) } },
    handler: (request) => registrations.list(request.auth, request.params.id, request.query),
  });

  app.post('/:id/registration', {
    config: { permission: 'events:write' },
    schema: { tags, params: EventParams, body: ContactIdsBody, response: { 201: CreatedResult(RegistrationSchema), ...errors(400, 401, 403, 404) } },
    handler: async (request, reply) => reply.status(201).send(await registrations.add(request.auth, request.params.id, request.body.contactIds)),
  });

  app.delete('/:id/registration/:registrationId', {
    config: { permission: 'events:write' },
    schema: { tags, params: RegistrationParams, response: { 204: NoContent, ...errors(400, 401, 403, 404) } },
    handler: async (request, reply) => {
      await registrations.remove(request.auth, request.params.id, request.params.registrationId);
      return reply.status(204).send(null);
    },
  });

  app.get('/:id/attendance', {
    config: { permission: 'events:read' },
    schema: { tags, params: EventParams, querystring: PageOnlyQuery, response: { 200: Paginated(AttendanceSchema), ...errors(400, 401, 403, 404) } },
    handler: (request) => attendance.list(request.auth, request.params.id, request.query),
  });

  app.post('/:id/attendance', {
    config: { permission: 'events:write' },
    schema: { tags, params: EventParams, body: ContactIdsBody, response: { 201: CreatedResult(AttendanceSchema), ...errors(400, 401, 403, 404) } },
    handler: async (request, reply) => reply.status(201).send(await attendance.add(request.auth, request.params.id, request.body.contactIds)),
  });

  app.delete('/:id/attendance/:attendanceId', {
    config: { permission: 'events:write' },
    schema: { tags, params: AttendanceParams, response: { 204: NoContent, ...errors(400, 401, 403, 404) } },
    handler: async (request, reply) => {
      await attendance.remove(request.auth, request.params.id, request.params.attendanceId);
      return reply.status(204).send(null);
    },
  });
};
