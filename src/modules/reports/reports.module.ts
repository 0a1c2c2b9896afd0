import type { ParishModule } from '../module.js';
import { missingReportsSchedule } from './missing.schedule.js';
import { reportsDocs } from './reports.docs.js';
import { reportsRoutes } from './reports.routes.js';

/** Reports (/api/reports) and the dashboard (/api/dashboard) (§4) (modules-contract). Registered from src/modules/index.ts. */
export const reportsModule: ParishModule = {
  name: 'reports',
  prefix: '/api',
  routes: reportsRoutes,
  docs: reportsDocs,
  schedules: [missingReportsSchedule],
};
