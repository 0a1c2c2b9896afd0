import type { ParishModule } from '../module.js';
import { groupsDocs } from './groups.docs.js';
import { groupsRoutes } from './groups.routes.js';

/** Groups: the hierarchy, its categories, memberships, membership requests and import. */
export const groupsModule: ParishModule = {
  name: 'groups',
  prefix: '/api/groups',
  routes: groupsRoutes,
  docs: groupsDocs,
};
