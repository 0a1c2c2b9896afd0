import type { ParishModule } from '../module.js';

/** Changes: the audit log (/api/audit) and the contact timeline (§7) (modules-contract). Built by its issue; registered from src/modules/index.ts. */
export const changesModule: ParishModule = {
  name: 'changes',
  prefix: '/api',
  routes: async () => {},
};
