import type { ParishModule } from '../module.js';

/** Reports (/api/reports) and the dashboard (/api/dashboard) (§4) (modules-contract). Built by its issue; registered from src/modules/index.ts. */
export const reportsModule: ParishModule = {
  name: 'reports',
  prefix: '/api',
  routes: async () => {},
};
