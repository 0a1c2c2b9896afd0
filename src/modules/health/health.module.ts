import type { ParishModule } from '../module.js';
import { healthDocs } from './health.docs.js';
import { healthRoutes } from './health.routes.js';

/** Health: liveness and database readiness (`GET /api/health`, public). */
export const healthModule: ParishModule = {
  name: 'health',
  prefix: '/api',
  routes: healthRoutes,
  docs: healthDocs,
};
