/**
 * The permission catalog: routes name these keys in `config.permission`, roles hold them, and
 * GET /api/roles/permissions lists them. Adding a module = adding its entries here.
 */
export const PERMISSION_CATALOG = [
  { key: 'contacts:read', description: 'Read contacts, relationships and pastoral requests' },
  { key: 'contacts:write', description: 'Create, update, import and delete contacts, relationships and requests' },
  { key: 'groups:read', description: 'Read visible groups, categories and memberships' },
  { key: 'groups:write', description: 'Manage groups, memberships and membership requests in led subtrees' },
  { key: 'events:read', description: 'Read events of visible groups' },
  { key: 'events:write', description: 'Manage events, registration, attendance and activities in led subtrees' },
  { key: 'users:read', description: 'Read user accounts' },
  { key: 'users:write', description: 'Create, update and delete user accounts' },
  { key: 'roles:read', description: 'Read roles and the permission catalog' },
  { key: 'roles:write', description: 'Create, update and delete roles' },
  { key: 'hierarchy:all', description: 'See and manage the whole group tree, not only led subtrees' },
  { key: 'attendance:read', description: 'Read services, sessions, attendance records, headcounts, summaries and absentees' },
  { key: 'attendance:write', description: 'Manage services, sessions, attendance records and headcounts in led subtrees' },
  { key: 'checkin:write', description: 'Check people in and out, print labels' },
  { key: 'finance:read', description: 'Read funds, batches, contributions, pledges and statements' },
  { key: 'finance:write', description: 'Record and change contributions, batches, funds and pledges' },
  { key: 'finance:admin', description: 'Reopen closed batches, change closed history, bulk statements' },
  { key: 'tasks:read', description: 'Read tasks, comments, pipelines and automations' },
  { key: 'tasks:write', description: 'Manage tasks, comments, pipelines and automations' },
  { key: 'care:read', description: 'Read confidential tasks and Counseling and Welfare requests' },
  { key: 'reports:read', description: 'Run reports (each also needs its module read permission)' },
  { key: 'notifications:send', description: 'Send messages and manage message templates' },
  { key: 'webhooks:write', description: 'Manage webhook subscriptions and their deliveries' },
  { key: 'audit:read', description: 'Read the audit log' },
  { key: 'privacy:write', description: 'Export, erase and merge contacts' },
] as const;

export type Permission = (typeof PERMISSION_CATALOG)[number]['key'];

export const ALL_PERMISSIONS: Permission[] = PERMISSION_CATALOG.map((p) => p.key);

export function isPermission(key: string): key is Permission {
  return (ALL_PERMISSIONS as string[]).includes(key);
}

/** The roles every tenant is seeded with (api-contract §4). Admin is re-synced to the full catalog on migrate. */
export const SYSTEM_ROLES: { name: string; description: string; permissions: Permission[] }[] = [
  { name: 'Admin', description: 'Every permission', permissions: ALL_PERMISSIONS },
  {
    name: 'Leader',
    description: 'Contacts, groups and events, scoped to the led part of the hierarchy',
    permissions: [
      'contacts:read', 'contacts:write', 'groups:read', 'groups:write', 'events:read', 'events:write',
      'attendance:read', 'attendance:write', 'checkin:write', 'tasks:read', 'tasks:write', 'reports:read',
    ],
  },
  { name: 'Treasurer', description: 'Giving records, contacts and reports', permissions: ['finance:read', 'finance:write', 'contacts:read', 'reports:read'] },
  { name: 'Check-in', description: 'A kiosk volunteer: family lookup, check-in, check-out and labels', permissions: ['checkin:write'] },
  { name: 'Member', description: 'Read visible groups and events', permissions: ['groups:read', 'events:read'] },
];
