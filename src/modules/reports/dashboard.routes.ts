import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { errors } from '../../lib/schemas.js';
import type { ModuleOptions } from '../module.js';
import { DashboardQuery, DashboardSchema } from './dashboard.schemas.js';
import { createDashboardService } from './dashboard.service.js';

/** GET /api/dashboard: any valid token; each section only with its read permission. */
export const dashboardRoutes: FastifyPluginAsyncTypebox<ModuleOptions> = async (app, { db }) => {
  const svc = createDashboardService({ db });
  app.get('/dashboard', {
    config: { authenticated: true, readOnly: true },
    schema: {
      tags: ['dashboard'],
      summary: 'The caller\'s dashboard',
      description:
        'Sections by permission: people and occasions (contacts:read; tenant-wide, as contacts are), attendance (attendance:read), giving (finance:read; tenant-wide), groups (groups:read), events (events:read; the next 5 from today), care (care:read: open Counseling and Welfare requests), tasks always (the caller\'s own open and overdue tasks; unassigned open tasks they may see with tasks:read). Window: from/to (default the last 4 weeks, this one included), compared with the window of the same length just before; attendance series per week. groupId/includeDescendants narrow the group sections (attendance, groups, events, unassigned tasks); an unknown or invisible groupId is 404. occasions lists the next 7 days, today included.',
      querystring: DashboardQuery,
      response: { 200: DashboardSchema, ...errors(400, 401, 404) },
    },
    handler: (request) => svc.get(request.auth, request.query),
  });
};
