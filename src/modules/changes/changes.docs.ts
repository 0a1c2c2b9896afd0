import type { ModuleDocs } from '../../plugins/operation-docs.js';

/** OpenAPI prose of the change feed's reads: the audit log and a contact's timeline (merged by the docs plugin). */
export const changesDocs: ModuleDocs = {
  'GET /api/audit': {
    summary: 'Read the audit log',
    visibility: 'the tenant\'s changes the caller may read (the change-feed rule in the description: module read permissions, care:read, visible groups).',
  },
  'GET /api/crm/contacts/:id/timeline': {
    summary: 'Read a contact\'s timeline',
    visibility: 'the contact is tenant-wide; entries about records the caller may not read (giving, tasks, confidential care, invisible groups …) are left out.',
    errors: { 404: 'No contact with this id in the tenant' },
  },
};
