import type { ParishModule } from '../module.js';

/** Privacy: contact export, erase, duplicates and merge (§7) (modules-contract). Built by its issue; registered from src/modules/index.ts. */
export const privacyModule: ParishModule = {
  name: 'privacy',
  prefix: '/api/crm',
  routes: async () => {},
};
