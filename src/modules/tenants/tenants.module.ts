import type { ParishModule } from '../module.js';
import { tenantsDocs } from './tenants.docs.js';
import { tenantsRoutes } from './tenants.routes.js';

/** Tenants: the public list for a login screen, and the caller's tenant settings (time zone, currency, registration). */
export const tenantsModule: ParishModule = {
  name: 'tenants',
  prefix: '/api',
  routes: tenantsRoutes,
  docs: tenantsDocs,
};
