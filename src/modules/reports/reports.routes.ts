import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { ModuleOptions } from '../module.js';
import { dashboardRoutes } from './dashboard.routes.js';
import { catalogRoutes } from './reports.catalog.routes.js';
import { templatesRoutes } from './templates.routes.js';

/** Everything under /api of the reports module: templates and submissions, the report catalog, the dashboard. */
export const reportsRoutes: FastifyPluginAsyncTypebox<ModuleOptions> = async (app, { db, config, mailer, auth }) => {
  const options: ModuleOptions = { db, config, mailer, auth };
  await app.register(templatesRoutes, options);
  await app.register(catalogRoutes, options);
  await app.register(dashboardRoutes, options);
};
