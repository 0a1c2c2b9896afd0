import { VISIBILITY, type ModuleDocs } from '../../plugins/operation-docs.js';

const rules = 'A household holds 1 to 30 people (contacts of category Person), each in at most one household; roles are Head, Spouse, Child and Other. ' +
  'The primary contact is the first Head, else the first member (in joining order), unless set with PUT; it is recomputed when the primary contact leaves. ' +
  'A household left empty by any removal (member DELETE, contact DELETE, merge, erase) is deleted.';
const member = (what: string) => `${what} Changes: household.member_added, household.member_updated and household.member_removed carry data.contactId and data.role.`;

/** OpenAPI prose of /api/crm/households (merged by the docs plugin). */
export const householdsDocs: ModuleDocs = {
  'GET /api/crm/households': {
    summary: 'List households',
    description: `By name, then id. \`q\` matches the household's name or a member's name (case- and accent-insensitive substring). ${rules}`,
    visibility: VISIBILITY.tenant,
  },
  'POST /api/crm/households': {
    summary: 'Create a household',
    description: `${rules} Without \`name\` it is "<last name of the first Head, else the first member> household". Records household.created alone, with its members in its data.`,
    visibility: VISIBILITY.tenant,
    errors: {
      400: 'A member is not a person (`Contact 7 is not a person`), is listed twice, or has an unknown role',
      404: 'A member does not exist (or belongs to another tenant)',
      409: 'A member already belongs to a household (`Contact 7 already belongs to household 3`)',
    },
    example: { name: 'Mwangi household', address: { street: '12 Riverside Drive', city: 'Nairobi', country: 'KE' }, givingTogether: true, members: [{ contactId: 12, role: 'Head' }, { contactId: 13, role: 'Spouse' }, { contactId: 14, role: 'Child' }] },
  },
  'GET /api/crm/households/:id': { summary: 'Read a household', visibility: VISIBILITY.tenant, errors: { 404: 'No household with this id in the tenant' } },
  'PUT /api/crm/households/:id': {
    summary: 'Update a household',
    description: 'Name, address (null: none), givingTogether and the primary contact (a member). Records household.updated with the fields that changed.',
    visibility: VISIBILITY.tenant,
    errors: { 400: 'primaryContactId is not a member (`Contact 7 is not a member of household 3`)', 404: 'No household with this id in the tenant' },
    example: { givingTogether: true, primaryContactId: 13 },
  },
  'DELETE /api/crm/households/:id': {
    summary: 'Delete a household',
    description: 'Removes the household and the memberships, never its people. Records household.deleted with its members in its data.',
    visibility: VISIBILITY.tenant,
    errors: { 404: 'No household with this id in the tenant' },
  },
  'POST /api/crm/households/:id/members': {
    summary: 'Add a member',
    description: member('Joins after the current members.'),
    visibility: VISIBILITY.tenant,
    errors: {
      400: 'The contact is not a person, or the role is unknown',
      404: 'No such household or contact in the tenant',
      409: 'The contact already belongs to a household, or the household already has 30 members',
    },
    example: { contactId: 15, role: 'Child' },
  },
  'PUT /api/crm/households/:id/members/:contactId': {
    summary: 'Change a member\'s role',
    description: member('The primary contact does not change with a role.'),
    visibility: VISIBILITY.tenant,
    errors: { 404: 'No such household, or the contact is not one of its members' },
    example: { role: 'Spouse' },
  },
  'DELETE /api/crm/households/:id/members/:contactId': {
    summary: 'Remove a member',
    description: member('The last member\'s removal deletes the household (household.deleted); the primary contact\'s removal makes the first Head, else the first member, primary.'),
    visibility: VISIBILITY.tenant,
    errors: { 404: 'No such household, or the contact is not one of its members' },
  },
};
