import type { ParishModule } from '../module.js';

/** Search: the search box, advanced contact search, saved lists (§5) (modules-contract). Built by its issue; registered from src/modules/index.ts. */
export const searchModule: ParishModule = {
  name: 'search',
  prefix: '/api/search',
  routes: async () => {},
};
