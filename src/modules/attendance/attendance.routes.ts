import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import { withTenant } from '../../db/client.js';
import { errors, IdParams, NoContent, Paginated } from '../../lib/schemas.js';
import type { ModuleOptions } from '../module.js';
import { attendanceAbsentees, attendanceSummary } from './attendance.queries.js';
import {
  AbsenteeSchema, AbsenteesQuerySchema, CheckinLookupQuery, CheckinLookupResult, CheckinResult, CheckinSchema, CheckoutBody, CreateCheckinBody, CreateServiceBody, CreateSessionBody,
  CreatedSessionSchema,
  GuestBody, GuestResult, HeadcountsBody, HeadcountsResult, KioskSessionSchema, LabelSchema, LabelsQuery, ListCheckinsQuery, ListRecordsQuery, ListServicesQuery,
  ListSessionsQuery, RecordParams, RecordSchema, RecordsBody, RecordsResult, ServiceSchema, SessionDetailSchema, SessionParams, SessionSchema,
  SummaryQuerySchema, SummarySchema, UpdateServiceBody, UpdateSessionBody,
} from './attendance.schemas.js';
import { createCheckinsService } from './checkins.service.js';
import { createServicesService } from './services.service.js';
import { createSessionsService } from './sessions.service.js';

const tags = ['attendance'];
const READ = { permission: 'attendance:read', readOnly: true } as const;
const WRITE = { permission: 'attendance:write' } as const;
const CHECKIN = { permission: 'checkin:write' } as const;

/** /api/attendance (modules-contract §1). */
export const attendanceRoutes: FastifyPluginAsyncTypebox<ModuleOptions> = async (app, { db }) => {
  const services = createServicesService(db);
  const sessions = createSessionsService(db);
  const checkins = createCheckinsService(db);

  // Services
  app.get('/services', {
    config: READ,
    schema: { tags, description: 'Services of visible groups, by name', querystring: ListServicesQuery, response: { 200: Paginated(ServiceSchema), ...errors(400, 401, 403) } },
    handler: (request) => services.list(request.auth, request.query),
  });
  app.post('/services', {
    config: WRITE,
    schema: { tags, body: CreateServiceBody, response: { 201: ServiceSchema, ...errors(400, 401, 403, 404) } },
    handler: async (request, reply) => reply.status(201).send(await services.create(request.auth, request.body)),
  });
  app.get('/services/:id', {
    config: READ,
    schema: { tags, params: IdParams, response: { 200: ServiceSchema, ...errors(400, 401, 403, 404) } },
    handler: (request) => services.get(request.auth, request.params.id),
  });
  app.put('/services/:id', {
    config: WRITE,
    schema: { tags, description: 'A new groupId moves the service and its sessions (it must be led too)', params: IdParams, body: UpdateServiceBody, response: { 200: ServiceSchema, ...errors(400, 401, 403, 404) } },
    handler: (request) => services.update(request.auth, request.params.id, request.body),
  });
  app.delete('/services/:id', {
    config: WRITE,
    schema: { tags, description: '409 while the service has sessions (deactivate it instead)', params: IdParams, response: { 204: NoContent, ...errors(400, 401, 403, 404, 409) } },
    handler: async (request, reply) => {
      await services.remove(request.auth, request.params.id);
      return reply.status(204).send(null);
    },
  });

  // Sessions, records, guests, headcounts
  app.get('/sessions', {
    config: READ,
    schema: { tags, description: 'Newest first. group is null only for an event without a host group.', querystring: ListSessionsQuery, response: { 200: Paginated(SessionSchema), ...errors(400, 401, 403) } },
    handler: (request) => sessions.list(request.auth, request.query),
  });
  app.post('/sessions', {
    config: WRITE,
    schema: {
      tags,
      description: 'Answers `warnings` (the session is created all the same) for a service session on another weekday than the service meets, '
        + 'and for a date after today in the tenant\'s time zone.',
      body: CreateSessionBody, response: { 201: CreatedSessionSchema, ...errors(400, 401, 403, 404, 409) },
    },
    handler: async (request, reply) => reply.status(201).send(await sessions.create(request.auth, request.body)),
  });
  app.get('/sessions/:id', {
    config: READ,
    schema: { tags, params: SessionParams, response: { 200: SessionDetailSchema, ...errors(400, 401, 403, 404) } },
    handler: (request) => sessions.get(request.auth, request.params.id),
  });
  app.put('/sessions/:id', {
    config: WRITE,
    schema: { tags, params: SessionParams, body: UpdateSessionBody, response: { 200: SessionSchema, ...errors(400, 401, 403, 404) } },
    handler: (request) => sessions.update(request.auth, request.params.id, request.body),
  });
  app.delete('/sessions/:id', {
    config: WRITE,
    schema: { tags, description: 'Its records, headcounts and check-ins go with it', params: SessionParams, response: { 204: NoContent, ...errors(400, 401, 403, 404) } },
    handler: async (request, reply) => {
      await sessions.remove(request.auth, request.params.id);
      return reply.status(204).send(null);
    },
  });
  app.post('/sessions/:id/records', {
    config: WRITE,
    schema: {
      tags, description: 'All-or-nothing on unknown contacts (404 naming them); contacts already present are skipped', params: SessionParams, body: RecordsBody,
      response: { 201: RecordsResult, ...errors(400, 401, 403, 404) },
    },
    handler: async (request, reply) => reply.status(201).send(await sessions.addRecords(request.auth, request.params.id, request.body)),
  });
  app.delete('/sessions/:id/records/:contactId', {
    config: WRITE,
    schema: { tags, params: RecordParams, response: { 204: NoContent, ...errors(400, 401, 403, 404) } },
    handler: async (request, reply) => {
      await sessions.removeRecord(request.auth, request.params.id, request.params.contactId);
      return reply.status(204).send(null);
    },
  });
  app.post('/sessions/:id/guests', {
    config: WRITE,
    schema: {
      tags, description: 'Matches an existing Person by email (case-insensitive) or phone digits, as the contacts import does; otherwise creates one. Records them as Guest.',
      params: SessionParams, body: GuestBody, response: { 201: GuestResult, ...errors(400, 401, 403, 404) },
    },
    handler: async (request, reply) => reply.status(201).send(await sessions.addGuest(request.auth, request.params.id, request.body)),
  });
  app.put('/sessions/:id/headcounts', {
    config: WRITE,
    schema: { tags, description: 'Replaces the session headcounts; types are free text, unique case-insensitively', params: SessionParams, body: HeadcountsBody, response: { 200: HeadcountsResult, ...errors(400, 401, 403, 404) } },
    handler: (request) => sessions.setHeadcounts(request.auth, request.params.id, request.body),
  });

  // The feed, summary, absentees
  app.get('/records', {
    config: READ,
    schema: { tags, description: 'One feed over services, group meetings, events and check-ins; newest first (date, then id)', querystring: ListRecordsQuery, response: { 200: Paginated(RecordSchema), ...errors(400, 401, 403) } },
    handler: (request) => sessions.feed(request.auth, request.query),
  });
  app.get('/summary', {
    config: READ,
    schema: {
      tags,
      description: 'Periods of the window (default the last 12 weeks, in the tenant time zone; weeks start on Sunday). Sessions marked didNotMeet are not counted; present counts every record, guests those of kind Guest.',
      querystring: SummaryQuerySchema, response: { 200: SummarySchema, ...errors(400, 401, 403) },
    },
    handler: (request) => withTenant(db, request.auth, (tx) => attendanceSummary(tx, request.auth, request.query)),
  });
  app.get('/absentees', {
    config: READ,
    schema: {
      tags,
      description: "Active members of groups in scope with no record at any of their group's last `missed` sessions that met (up to today); lastAttendedOn is their latest record at that group's sessions",
      querystring: AbsenteesQuerySchema, response: { 200: Paginated(AbsenteeSchema), ...errors(400, 401, 403) },
    },
    handler: (request) => withTenant(db, request.auth, (tx) => attendanceAbsentees(tx, request.auth, request.query)),
  });

  // Check-in
  app.post('/checkins', {
    config: CHECKIN,
    schema: { tags, description: 'One security code for everyone checked in together; also records them present', body: CreateCheckinBody, response: { 201: CheckinResult, ...errors(400, 401, 403, 404, 409) } },
    handler: async (request, reply) => reply.status(201).send(await checkins.checkIn(request.auth, request.body)),
  });
  app.get('/checkins/lookup', {
    config: { ...CHECKIN, readOnly: true },
    schema: { tags, querystring: CheckinLookupQuery, response: { 200: CheckinLookupResult, ...errors(400, 401, 403) } },
    handler: (request) => checkins.lookup(request.auth, request.query),
  });
  app.get('/checkins', {
    config: READ,
    schema: { tags, querystring: ListCheckinsQuery, response: { 200: Paginated(CheckinSchema), ...errors(400, 401, 403) } },
    handler: (request) => checkins.list(request.auth, request.query),
  });
  app.post('/checkins/checkout', {
    config: CHECKIN,
    schema: { tags, description: 'Checks out every open check-in under the code; an unknown code is 404, a code already checked out is 409 (saying when)', body: CheckoutBody, response: { 200: Type.Object({ data: Type.Array(CheckinSchema) }), ...errors(400, 401, 403, 404, 409, 429) } },
    handler: (request) => checkins.checkOut(request.auth, request.body),
  });
  app.get('/checkins/:id/label', {
    config: CHECKIN,
    schema: { tags, description: 'serviceName is the service name, else the event name, else the meeting group name; room is the room group name', params: IdParams, response: { 200: LabelSchema, ...errors(400, 401, 403, 404) } },
    handler: (request) => checkins.label(request.auth, request.params.id),
  });
  app.get('/checkins/labels', {
    config: { ...CHECKIN, readOnly: true },
    schema: { tags, querystring: LabelsQuery, response: { 200: Type.String({ description: 'application/pdf' }), ...errors(400, 401, 403, 404) } },
    handler: async (request, reply) => {
      const pdf = await checkins.labelsPdf(request.auth, request.query);
      return reply.type('application/pdf').header('content-disposition', 'inline; filename="checkin-labels.pdf"').send(pdf as never);
    },
  });
  app.get('/checkins/sessions', {
    config: { ...CHECKIN, readOnly: true },
    schema: { tags, response: { 200: Type.Object({ data: Type.Array(KioskSessionSchema) }), ...errors(401, 403) } },
    handler: (request) => checkins.todaysSessions(request.auth),
  });
};
