import { VISIBILITY, type ModuleDocs } from '../../plugins/operation-docs.js';

const criteria = {
  match: 'all',
  conditions: [
    { field: 'memberOf', operator: 'eq', value: 7 },
    { field: 'notAttendedWithinDays', operator: 'lt', value: 30 },
  ],
  sort: 'lastName',
};

/** OpenAPI prose of /api/search: the search box, advanced contact search, saved lists (merged by the docs plugin). */
export const searchDocs: ModuleDocs = {
  'GET /api/search': {
    summary: 'Search everything (the search box)',
    description: 'Type `households` (with `contacts:read`) matches a household\'s name or a member\'s name; its title is the household\'s name, its subtitle the members\' first names.',
    visibility: 'each type only with its read permission, and only rows the caller may see (groups and events by the hierarchy, tasks as GET /api/tasks).',
  },
  'POST /api/search/contacts': {
    summary: 'Advanced contact search',
    visibility: `${VISIBILITY.tenant} Giving conditions need \`finance:read\`, attendance conditions \`attendance:read\`, membership conditions \`groups:read\` (403), and group conditions see only visible groups.`,
    errors: { 403: 'Giving or attendance conditions without their read permission', 404: 'A group in a condition does not exist or is not visible' },
    example: { ...criteria, page: 1, limit: 20 },
  },
  'GET /api/search/lists': { summary: 'List saved contact lists', visibility: 'the caller\'s own lists and the shared ones.' },
  'POST /api/search/lists': {
    summary: 'Save a contact list (saved search)',
    visibility: 'the list belongs to the caller; `shared` shows it to every holder of contacts:read.',
    errors: { 403: 'Giving or attendance conditions without their read permission', 404: 'A group in a condition does not exist or is not visible' },
    example: { name: 'Cell members missing a month', criteria, shared: true },
  },
  'GET /api/search/lists/:id': { summary: 'Read a saved list', visibility: 'the caller\'s own lists and the shared ones.', errors: { 404: 'No list with this id, or another user\'s private list' } },
  'PUT /api/search/lists/:id': {
    summary: 'Update a saved list',
    visibility: 'the owner; a shared list also holders of contacts:write.',
    errors: { 403: 'Not the owner (or shared and without contacts:write), or changing `shared` when not the owner', 404: 'No list with this id, or another user\'s private list' },
    example: { name: 'Cell members missing five weeks' },
  },
  'DELETE /api/search/lists/:id': {
    summary: 'Delete a saved list',
    visibility: 'the owner; a shared list also holders of contacts:write.',
    errors: { 403: 'Not the owner, and the list is not shared or the caller lacks contacts:write', 404: 'No list with this id, or another user\'s private list' },
  },
  'GET /api/search/lists/:id/contacts': {
    summary: 'The contacts a saved list matches now',
    visibility: 'evaluated with the reader\'s own visibility and permissions.',
    errors: { 403: 'Giving or attendance conditions the reader may not read', 404: 'No list with this id, or another user\'s private list' },
  },
};
