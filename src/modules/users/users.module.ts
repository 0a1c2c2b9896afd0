import type { ParishModule } from '../module.js';
import { usersDocs } from './users.docs.js';
import { usersRoutes } from './users.routes.js';

/** Users: the accounts of the caller's tenant, and the caller's own account under `/me`. */
export const usersModule: ParishModule = {
  name: 'users',
  prefix: '/api/users',
  routes: usersRoutes,
  docs: usersDocs,
};
