import { rolesDocs } from '../modules/roles/roles.docs.js';
import { usersDocs } from '../modules/users/users.docs.js';
import type { ModuleDocs } from './docs.js';

/** Every module's operation docs (`src/modules/<module>/<module>.docs.ts`), keyed by `METHOD path`. */
export const API_DOCS: ModuleDocs = {
  ...usersDocs,
  ...rolesDocs,
};
