import { VISIBILITY, type ModuleDocs } from '../../plugins/operation-docs.js';

/** OpenAPI prose of the privacy routes: export, erase, duplicates, merge (merged by the docs plugin). */
export const privacyDocs: ModuleDocs = {
  'GET /api/crm/contacts/:id/export': {
    summary: 'Export everything held about a person',
    visibility: VISIBILITY.tenant,
    errors: { 404: 'No contact with this id in the tenant' },
  },
  'POST /api/crm/contacts/:id/erase': {
    summary: 'Erase a person (right to be forgotten)',
    visibility: VISIBILITY.tenant,
    errors: { 400: '`confirm: true` is missing', 403: 'The caller\'s own contact', 404: 'No contact with this id in the tenant' },
    example: { confirm: true },
  },
  'GET /api/crm/duplicates': {
    summary: 'List likely duplicate contacts',
    visibility: VISIBILITY.tenant,
  },
  'POST /api/crm/contacts/:id/merge': {
    summary: 'Merge duplicate contacts into this one',
    visibility: VISIBILITY.tenant,
    errors: { 400: 'sourceIds include the surviving contact', 404: 'The contact or a source does not exist in the tenant', 409: 'More than one of the contacts is linked to a user account' },
    example: { sourceIds: [15, 18] },
  },
};
