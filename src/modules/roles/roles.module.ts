import type { ParishModule } from '../module.js';
import { rolesDocs } from './roles.docs.js';
import { rolesRoutes } from './roles.routes.js';

/** Roles: the tenant's roles and the permission catalog they are made from. */
export const rolesModule: ParishModule = {
  name: 'roles',
  prefix: '/api/roles',
  routes: rolesRoutes,
  docs: rolesDocs,
};
