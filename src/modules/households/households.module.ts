import type { ParishModule } from '../module.js';
import { householdsDocs } from './households.docs.js';
import { householdsRoutes } from './households.routes.js';

/** Households: families, their members and roles, the primary contact (modules-contract §8). */
export const householdsModule: ParishModule = {
  name: 'households',
  prefix: '/api/crm/households',
  routes: householdsRoutes,
  docs: householdsDocs,
};
