import type { ParishModule } from '../module.js';
import { changesDocs } from './changes.docs.js';
import { changesRoutes } from './changes.routes.js';

/**
 * Changes: the audit log (/api/audit) and the contact timeline (/api/crm/contacts/:id/timeline),
 * modules-contract §7. Both read the change feed that every write records (src/changes/recorder.ts).
 */
export const changesModule: ParishModule = {
  name: 'changes',
  prefix: '/api',
  routes: changesRoutes,
  docs: changesDocs,
};
