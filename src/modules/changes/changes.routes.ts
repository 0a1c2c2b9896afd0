import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { CHANGE_READ_RULE } from '../../changes/readable.js';
import { errors, IdParams, Paginated } from '../../lib/schemas.js';
import type { ModuleOptions } from '../module.js';
import { AuditItem, AuditQuery, TimelineItem, TimelineQuery } from './changes.schemas.js';
import { createChangesService } from './changes.service.js';

/** /api/audit and /api/crm/contacts/:id/timeline: reads of the change feed (modules-contract §7). */
export const changesRoutes: FastifyPluginAsyncTypebox<ModuleOptions> = async (app, { db }) => {
  const changes = createChangesService(db);

  app.get('/audit', {
    config: { permission: 'audit:read', readOnly: true },
    schema: {
      tags: ['audit'],
      description:
        'Every recorded change of the tenant, newest first (occurredAt, then id). Filters combine with AND. ' +
        '`from`/`to` take a date (read in the tenant\'s time zone; `to` covers that whole day) or an ISO 8601 instant; both bounds are inclusive. ' +
        `Only the changes the caller may read: ${CHANGE_READ_RULE}`,
      querystring: AuditQuery,
      response: { 200: Paginated(AuditItem), ...errors(400, 401, 403) },
    },
    handler: (request) => changes.audit(request.auth, request.query),
  });

  app.get('/crm/contacts/:id/timeline', {
    config: { permission: 'contacts:read', readOnly: true },
    schema: {
      tags: ['contacts'],
      description:
        'What happened to a person, newest first, from the change feed: changes of the contact itself and every change naming it ' +
        `(memberships, requests, activities, attendance, tasks, giving …), left out when the caller may not read them: ${CHANGE_READ_RULE}`,
      params: IdParams,
      querystring: TimelineQuery,
      response: { 200: Paginated(TimelineItem), ...errors(400, 401, 403, 404) },
    },
    handler: (request) => changes.timeline(request.auth, request.params.id, request.query),
  });
};
