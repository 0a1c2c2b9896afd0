import type { ParishModule } from '../module.js';

/** Finance: funds, batches, contributions, pledges, statements, summary (§3) (modules-contract). Built by its issue; registered from src/modules/index.ts. */
export const financeModule: ParishModule = {
  name: 'finance',
  prefix: '/api/finance',
  routes: async () => {},
};
