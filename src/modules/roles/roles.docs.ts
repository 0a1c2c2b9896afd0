import type { ModuleDocs } from '../../plugins/operation-docs.js';

/** OpenAPI prose of /api/roles (merged into the routes by the docs plugin). */
export const rolesDocs: ModuleDocs = {
  'GET /api/roles/permissions': {
    summary: 'List the permission catalog',
    description: 'Every permission key (`<resource>:<action>`) a role can hold, with its description.',
  },
  'GET /api/roles': {
    summary: 'List roles',
    description: 'The tenant\'s roles with their permissions and how many users hold each; `q` filters by name.',
    visibility: 'every role of the caller\'s tenant.',
  },
  'POST /api/roles': {
    summary: 'Create a role',
    description: 'Permissions are keys of the catalog (`GET /api/roles/permissions`).',
    visibility: 'the caller can only put permissions it holds itself into a role.',
    errors: { 403: 'The role would have permissions the caller does not hold', 409: 'A role with this name already exists' },
    example: { name: 'Usher', description: 'Counts attendance at services', permissions: ['attendance:read', 'attendance:write'] },
  },
  'GET /api/roles/:id': {
    summary: 'Read a role',
    errors: { 404: 'No role with this id in the tenant' },
  },
  'PUT /api/roles/:id': {
    summary: 'Update a role',
    description: '`permissions`, when sent, replaces the role\'s permissions; the change applies to its users\' next request.',
    visibility: 'only roles whose permissions the caller holds.',
    errors: {
      403: 'The role has, or would get, permissions the caller does not hold',
      404: 'No role with this id in the tenant',
      409: 'A system role\'s name or permissions, or a name another role has',
    },
    example: { description: 'Counts attendance and checks people in', permissions: ['attendance:read', 'attendance:write', 'contacts:read'] },
  },
  'DELETE /api/roles/:id': {
    summary: 'Delete a role',
    visibility: 'only roles whose permissions the caller holds.',
    errors: {
      403: 'The role has permissions the caller does not hold',
      404: 'No role with this id in the tenant',
      409: 'A system role, or a role still assigned to users',
    },
  },
};
