import { VISIBILITY, type ModuleDocs } from '../../plugins/operation-docs.js';

/** OpenAPI prose of /api/groups: the hierarchy, categories, memberships, membership requests, import (merged by the docs plugin). */
export const groupsDocs: ModuleDocs = {
  'GET /api/groups': {
    summary: 'List groups',
    description: 'Ordered by name; filters by category, parent, privacy and `q` (name).',
    visibility: VISIBILITY.hierarchyRead,
  },
  'POST /api/groups': {
    summary: 'Create a group',
    description: 'Under `parentId` (any category may sit at any depth); without a parent it is a root group.',
    visibility: `${VISIBILITY.hierarchyWrite} A root group (no parent) is ${VISIBILITY.structure}`,
    errors: { 404: 'categoryId or parentId does not exist in the tenant or is not visible' },
    example: { name: 'Kisaasi Cell', categoryId: 6, parentId: 4, privacy: 'Public', details: 'Meets on Thursdays', address: { street: '5 Kisaasi Road', city: 'Kampala', country: 'Uganda' } },
  },
  'GET /api/groups/:id': {
    summary: 'Read a group',
    description: 'With its parent `{id, name}`, category, members and children.',
    visibility: `${VISIBILITY.hierarchyRead} Members and children show only visible groups; the parent is shown even when not visible.`,
    errors: { 404: 'No group with this id, or not visible to the caller' },
  },
  'PUT /api/groups/:id': {
    summary: 'Update a group',
    description: 'A new `parentId` moves the group with its subtree (never under itself or a descendant).',
    visibility: VISIBILITY.hierarchyWrite,
    errors: { 404: 'The group, categoryId or parentId does not exist or is not visible', 409: 'The new parent is the group itself or one of its descendants' },
    example: { name: 'Kisaasi Cell B', privacy: 'Private' },
  },
  'DELETE /api/groups/:id': {
    summary: 'Delete a group',
    visibility: VISIBILITY.hierarchyWrite,
    errors: { 404: 'No group with this id, or not visible', 409: 'The group still has child groups, members or other records' },
  },
  'GET /api/groups/categories': {
    summary: 'List group categories',
    description: 'The six seeded hierarchy categories (Church … Fellowship) and custom ones; `purpose` is free text, `level` optional.',
    visibility: VISIBILITY.tenant,
  },
  'POST /api/groups/categories': {
    summary: 'Create a group category',
    visibility: VISIBILITY.structure,
    errors: { 409: 'A category with this name exists' },
    example: { name: 'Youth Cell', description: 'Cells for students', purpose: 'Hierarchy', level: 6 },
  },
  'GET /api/groups/combo': {
    summary: 'List groups for a picker',
    description: 'A light `{id, name}` list, optionally of one `categoryId`.',
    visibility: VISIBILITY.hierarchyRead,
  },
  'POST /api/groups/import': {
    summary: 'Import groups (JSON or CSV)',
    description: 'JSON `{groups: [{name, category, parentName}]}` or `text/csv` with the header `name,category,parentName`; parents may come earlier in the same file.',
    visibility: VISIBILITY.structure,
    errors: { 415: 'Neither application/json nor text/csv' },
    example: { groups: [{ name: 'North Zone', category: 'Zone', parentName: 'Kampala Location' }] },
  },
  'GET /api/groups/membership': {
    summary: 'List memberships',
    description: 'Filters `groupId`, `contactId`, `role`, `isActive`, all optional.',
    visibility: `${VISIBILITY.hierarchyRead} Only memberships of visible groups, whatever the filters.`,
  },
  'POST /api/groups/membership': {
    summary: 'Add a contact to a group',
    visibility: VISIBILITY.hierarchyWrite,
    errors: { 404: 'contactId or groupId does not exist or is not visible', 409: 'The contact is already a member of the group' },
    example: { contactId: 12, groupId: 7, role: 'Member', isActive: true },
  },
  'PUT /api/groups/membership/:id': {
    summary: 'Change a membership\'s role or activity',
    visibility: VISIBILITY.hierarchyWrite,
    errors: { 404: 'No membership with this id, or its group is not visible' },
    example: { role: 'Assistant' },
  },
  'DELETE /api/groups/membership/:id': {
    summary: 'Remove a contact from a group',
    visibility: VISIBILITY.hierarchyWrite,
    errors: { 404: 'No membership with this id, or its group is not visible' },
  },
  'GET /api/groups/membership-request': {
    summary: 'List membership requests the caller may handle',
    description: 'Pending requests of groups the caller may manage (groups:write, within the subtrees the caller leads); empty for a plain member.',
    visibility: VISIBILITY.hierarchyWrite,
  },
  'POST /api/groups/membership-request': {
    summary: 'Ask to join a group',
    description: 'For the caller\'s own contact with `groups:read`; for another `contactId`, `groups:write` and a led subtree are needed.',
    visibility: VISIBILITY.hierarchyRead,
    errors: { 403: 'Asking for another contact without groups:write on the group', 404: 'The group or contact does not exist or is not visible', 409: 'Already a member, or a request is already pending' },
    example: { groupId: 7 },
  },
  'PUT /api/groups/membership-request/:id/approve': {
    summary: 'Approve a membership request',
    description: 'Adds the contact to the group as a Member.',
    visibility: VISIBILITY.hierarchyWrite,
    errors: { 404: 'No request with this id, or its group is not visible', 409: 'The request was already handled' },
  },
  'PUT /api/groups/membership-request/:id/reject': {
    summary: 'Reject a membership request',
    visibility: VISIBILITY.hierarchyWrite,
    errors: { 404: 'No request with this id, or its group is not visible', 409: 'The request was already handled' },
  },
};
