import type { ModuleDocs } from '../../plugins/operation-docs.js';

/** OpenAPI prose of /api/users (merged into the routes by the docs plugin). */
export const usersDocs: ModuleDocs = {
  'GET /api/users/me': {
    summary: 'Read the caller\'s own account',
    description: 'The signed-in user with its roles (`[{id, name}]`) and effective permissions.',
  },
  'PUT /api/users/me/password': {
    summary: 'Change the caller\'s password',
    description: 'Needs the current password; the caller\'s other refresh-token families (other sessions) are revoked.',
    errors: { 400: 'currentPassword is incorrect, or newPassword is outside 8–256 characters (400, not 401: the session stays valid)' },
    example: { currentPassword: 'old password here', newPassword: 'a new long passphrase' },
  },
  'GET /api/users': {
    summary: 'List user accounts',
    description: 'Filters: `q` (username or email substring), `roleId`, `status`. Ordered by username.',
    visibility: 'every account of the caller\'s tenant.',
  },
  'POST /api/users': {
    summary: 'Create a user account',
    description: 'Either a `password` or `invite: true` (emails a link to choose one; needs `email`). The account is linked to `contactId`, ' +
      'or to a new Person contact made from `firstName`/`lastName`.',
    visibility: 'the caller can only grant roles whose permissions it holds itself, and link contacts who lead only groups inside the part of the hierarchy it leads.',
    errors: {
      403: 'A role in roleIds has permissions the caller does not hold, or the contact leads groups outside the caller\'s subtree',
      404: 'A roleId or the contactId does not exist in the tenant',
      409: 'The username or email is taken in the tenant, or the contact is already linked to a user',
    },
    example: { username: 'ruth.adams', email: 'ruth@example.org', invite: true, firstName: 'Ruth', lastName: 'Adams', roleIds: [3] },
  },
  'GET /api/users/:id': {
    summary: 'Read a user account',
    description: 'The account with its roles and effective permissions.',
    errors: { 404: 'No user with this id in the tenant' },
  },
  'PUT /api/users/:id': {
    summary: 'Update a user account',
    description: 'Email, status (`Active`/`Disabled`: a disabled user\'s tokens stop working at once), `roleIds` (replaces the roles) and the linked contact.',
    visibility: 'only users whose permissions the caller holds; the caller cannot change its own roles or status.',
    errors: {
      403: 'The user or a granted role has permissions the caller does not hold, or the caller changes its own roles or status',
      404: 'No user, role or contact with this id in the tenant',
      409: 'The email is taken, or the change would leave the tenant without an active administrator',
    },
    example: { email: 'ruth.adams@example.org', status: 'Active', roleIds: [2, 3] },
  },
  'POST /api/users/:id/invitation': {
    summary: 'Send an invitation again',
    description: 'Emails a new link (valid 7 days) to choose a password, for an account invited with `invite: true` that has not chosen one yet (`invitationPending`). Earlier links keep working until they expire.',
    visibility: 'only users whose permissions the caller holds.',
    errors: {
      403: 'The user has permissions the caller does not hold',
      404: 'No user with this id in the tenant',
      409: 'The user has already chosen a password, or has no email',
    },
  },
  'DELETE /api/users/:id': {
    summary: 'Delete a user account',
    description: 'The linked contact stays.',
    visibility: 'only users whose permissions the caller holds; never the caller\'s own account.',
    errors: {
      403: 'The caller\'s own account, or a user with permissions the caller does not hold',
      404: 'No user with this id in the tenant',
      409: 'The tenant\'s last active administrator',
    },
  },
};
