import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import { errors, IdParams, Paginated } from '../../lib/schemas.js';
import type { ModuleOptions } from '../module.js';
import { createInboxService } from './inbox.service.js';
import { ListNotificationsQuery, NotificationSchema, PreferencesSchema, UpdatePreferencesBody } from './notifications.schemas.js';

const tags = ['notifications'];
const me = { authenticated: true } as const;

/** The caller's in-app inbox and notification preferences (any valid token; only their own). */
export const inboxRoutes: FastifyPluginAsyncTypebox<ModuleOptions> = async (app, options) => {
  const inbox = createInboxService(options);

  app.get('', {
    config: me,
    schema: { tags, description: "The caller's notifications, newest first", querystring: ListNotificationsQuery, response: { 200: Paginated(NotificationSchema), ...errors(400, 401) } },
    handler: (request) => inbox.list(request.auth, request.query),
  });

  app.get('/unread-count', {
    config: { ...me, readAhead: inbox.unreadCountAhead },
    schema: { tags, response: { 200: Type.Object({ count: Type.Integer() }), ...errors(401) } },
    handler: (request) => inbox.unreadCount(request.auth),
  });

  app.put('/read-all', {
    config: me,
    schema: { tags, description: "Marks every unread notification of the caller read", response: { 200: Type.Object({ updated: Type.Integer() }), ...errors(401) } },
    handler: (request) => inbox.readAll(request.auth),
  });

  app.put('/:id/read', {
    config: me,
    schema: { tags, description: 'Idempotent: a notification already read keeps its first readAt', params: IdParams, response: { 200: NotificationSchema, ...errors(400, 401, 404) } },
    handler: (request) => inbox.read(request.auth, request.params.id),
  });

  app.get('/preferences', {
    config: me,
    schema: { tags, response: { 200: PreferencesSchema, ...errors(401) } },
    handler: (request) => inbox.preferences(request.auth),
  });

  app.put('/preferences', {
    config: me,
    schema: { tags, body: UpdatePreferencesBody, response: { 200: PreferencesSchema, ...errors(400, 401) } },
    handler: (request) => inbox.updatePreferences(request.auth, request.body),
  });
};
