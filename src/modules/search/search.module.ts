import type { ParishModule } from '../module.js';
import { searchDocs } from './search.docs.js';
import { searchRoutes } from './search.routes.js';

/** Search: the search box, advanced contact search, saved lists (modules-contract §5). */
export const searchModule: ParishModule = {
  name: 'search',
  prefix: '/api/search',
  routes: searchRoutes,
  docs: searchDocs,
};
