import type { Fixtures, Kind } from './fixtures.js';

/**
 * What the safety suite needs to call every route: which fixture kind each path parameter is, and a
 * body that passes validation (built from the fixtures, so the same entry sent with another tenant's
 * fixtures names that tenant's ids). A route missing here fails the matrix test.
 */
export interface RouteEntry {
  params?: Record<string, Kind | { value: string }>;
  body?: (f: Fixtures) => unknown;
  query?: string;
  /**
   * Writes to a group-bound record answer 403 when the group is visible but not led, reads 200; an
   * entry overrides where the contract differs (e.g. a request to join is allowed in any visible group).
   */
  visibleNotLed?: number;
  /** The status for another tenant's ids where the contract is not 404 (per-item results). */
  foreignIds?: number;
  /** The route ignores group visibility by contract (tenant-wide or own-record routes); reason given. */
  noVisibility?: string;
}

const id = { id: 'contact' } as const;
const contactBody = () => ({ category: 'Person', person: { firstName: 'Matrix', lastName: 'Probe' } });

export const ROUTES: Record<string, RouteEntry> = {
  // attendance
  'GET /api/attendance/absentees': { query: 'groupId=1' },
  'GET /api/attendance/checkins': {},
  // Check-in needs only checkin:write and a visible session (modules-contract: a kiosk volunteer).
  'POST /api/attendance/checkins': { body: (f) => ({ sessionId: f.session, contactIds: [f.contact] }), visibleNotLed: 201 },
  'GET /api/attendance/checkins/:id/label': { params: { id: 'checkin' } },
  'GET /api/attendance/checkins/lookup': { query: 'q=Probe' },
  'GET /api/attendance/checkins/labels': { query: 'ids=1' },
  'GET /api/attendance/checkins/sessions': {},
  // An unknown code is 404 in a visible session too.
  'POST /api/attendance/checkins/checkout': { body: (f) => ({ sessionId: f.session, securityCode: 'ACDE' }), visibleNotLed: 404 },
  'GET /api/attendance/records': {},
  'GET /api/attendance/services': {},
  'POST /api/attendance/services': { body: (f) => ({ name: 'Matrix', groupId: f.group, dayOfWeek: 0, startTime: '09:30' }) },
  'GET /api/attendance/services/:id': { params: { id: 'service' } },
  'DELETE /api/attendance/services/:id': { params: { id: 'service' } },
  'PUT /api/attendance/services/:id': { params: { id: 'service' }, body: () => ({ name: 'Renamed' }) },
  'GET /api/attendance/sessions': {},
  'POST /api/attendance/sessions': { body: (f) => ({ groupId: f.group, date: '2026-04-05' }) },
  'GET /api/attendance/sessions/:id': { params: { id: 'session' } },
  'DELETE /api/attendance/sessions/:id': { params: { id: 'session' } },
  'PUT /api/attendance/sessions/:id': { params: { id: 'session' }, body: () => ({ notes: 'n' }) },
  'POST /api/attendance/sessions/:id/guests': { params: { id: 'session' }, body: () => ({ firstName: 'G', lastName: 'Uest' }) },
  'PUT /api/attendance/sessions/:id/headcounts': { params: { id: 'session' }, body: () => ({ counts: [{ type: 'Adults', count: 3 }] }) },
  'POST /api/attendance/sessions/:id/records': { params: { id: 'session' }, body: (f) => ({ contactIds: [f.contact] }) },
  'DELETE /api/attendance/sessions/:id/records/:contactId': { params: { id: 'session', contactId: 'contact' } },
  'GET /api/attendance/summary': {},
  'GET /api/audit': {},
  // contacts
  'GET /api/crm/companies': {},
  'GET /api/crm/contacts': {},
  'POST /api/crm/contacts': { body: contactBody },
  'GET /api/crm/contacts/:id': { params: id },
  'DELETE /api/crm/contacts/:id': { params: id },
  'PUT /api/crm/contacts/:id': { params: id, body: () => ({ status: 'Active' }) },
  'POST /api/crm/contacts/:id/erase': { params: id, body: () => ({ confirm: true }) },
  'GET /api/crm/contacts/:id/export': { params: id },
  'POST /api/crm/contacts/:id/merge': { params: id, body: (f) => ({ sourceIds: [f.contact2] }) },
  'GET /api/crm/contacts/:id/timeline': { params: id },
  'POST /api/crm/contacts/import': { body: () => ({ contacts: [] }) },
  'GET /api/crm/contacts/import/formats': {},
  'GET /api/crm/duplicates': {},
  'GET /api/crm/people': {},
  'GET /api/crm/households': {},
  'POST /api/crm/households': { body: (f) => ({ members: [{ contactId: f.contact2, role: 'Head' }] }) },
  'GET /api/crm/households/:id': { params: { id: 'household' } },
  'PUT /api/crm/households/:id': { params: { id: 'household' }, body: () => ({ givingTogether: true }) },
  'DELETE /api/crm/households/:id': { params: { id: 'household' } },
  'POST /api/crm/households/:id/members': { params: { id: 'household' }, body: (f) => ({ contactId: f.contact2, role: 'Child' }) },
  'PUT /api/crm/households/:id/members/:contactId': { params: { id: 'household', contactId: 'contact' }, body: () => ({ role: 'Spouse' }) },
  'DELETE /api/crm/households/:id/members/:contactId': { params: { id: 'household', contactId: 'contact' } },
  'GET /api/crm/relationships': {},
  'POST /api/crm/relationships': { body: (f) => ({ contactId: f.contact, relatedContactId: f.contact2, type: 'Spouse' }) },
  'DELETE /api/crm/relationships/:id': { params: { id: 'relationship' } },
  'GET /api/crm/requests': {},
  'POST /api/crm/requests': { body: (f) => ({ contactId: f.contact, type: 'Prayer', description: 'd' }) },
  'DELETE /api/crm/requests/:id': { params: { id: 'request' } },
  'PUT /api/crm/requests/:id': { params: { id: 'request' }, body: () => ({ status: 'Resolved' }) },
  'GET /api/dashboard': {},
  // events
  'GET /api/events': {},
  'POST /api/events': { body: (f) => ({ name: 'Matrix', startDate: '2026-05-01', groupId: f.group }) },
  'GET /api/events/:id': { params: { id: 'event' } },
  'DELETE /api/events/:id': { params: { id: 'event' } },
  'PUT /api/events/:id': { params: { id: 'event' }, body: () => ({ name: 'Renamed' }) },
  'GET /api/events/:id/activities': { params: { id: 'event' } },
  'POST /api/events/:id/activities': { params: { id: 'event' }, body: (f) => ({ activityType: 'Other', contactIds: [f.contact] }) },
  'GET /api/events/:id/attendance': { params: { id: 'event' } },
  'POST /api/events/:id/attendance': { params: { id: 'event' }, body: (f) => ({ contactIds: [f.contact] }) },
  'DELETE /api/events/:id/attendance/:attendanceId': { params: { id: 'event', attendanceId: 'attendance' } },
  'GET /api/events/:id/registration': { params: { id: 'event' } },
  'POST /api/events/:id/registration': { params: { id: 'event' }, body: (f) => ({ contactIds: [f.contact] }) },
  'DELETE /api/events/:id/registration/:registrationId': { params: { id: 'event', registrationId: 'registration' } },
  'GET /api/events/categories': {},
  'POST /api/events/categories': { body: () => ({ name: 'Matrix category' }) },
  // finance
  'GET /api/finance/batches': {},
  'POST /api/finance/batches': { body: () => ({ name: 'Matrix', date: '2026-03-01' }) },
  'GET /api/finance/batches/:id': { params: { id: 'batch' } },
  'DELETE /api/finance/batches/:id': { params: { id: 'batch' } },
  'PUT /api/finance/batches/:id': { params: { id: 'batch' }, body: () => ({ name: 'Renamed' }) },
  'PUT /api/finance/batches/:id/close': { params: { id: 'batch' }, body: () => ({}) },
  'PUT /api/finance/batches/:id/reopen': { params: { id: 'batch' } },
  'GET /api/finance/contributions': {},
  'POST /api/finance/contributions': { body: (f) => ({ contactId: f.contact, date: '2026-03-01', amount: 100, method: 'Cash', lines: [{ fundId: f.fund, amount: 100 }] }) },
  'GET /api/finance/contributions/:id': { params: { id: 'contribution' } },
  'DELETE /api/finance/contributions/:id': { params: { id: 'contribution' } },
  'PUT /api/finance/contributions/:id': { params: { id: 'contribution' }, body: () => ({ notes: 'n' }) },
  'POST /api/finance/contributions/:id/refund': { params: { id: 'contribution' }, body: () => ({ amount: 1 }) },
  'GET /api/finance/contributions/export': {},
  'POST /api/finance/contributions/import': { body: () => ({ rows: [], dryRun: true }) },
  'GET /api/finance/funds': {},
  'POST /api/finance/funds': { body: () => ({ name: 'Matrix fund' }) },
  'GET /api/finance/funds/:id': { params: { id: 'fund' } },
  'DELETE /api/finance/funds/:id': { params: { id: 'fund' } },
  'PUT /api/finance/funds/:id': { params: { id: 'fund' }, body: () => ({ description: 'd' }) },
  'GET /api/finance/my/contributions': {},
  'GET /api/finance/my/statement': {},
  'GET /api/finance/pledges': {},
  'POST /api/finance/pledges': { body: (f) => ({ contactId: f.contact, fundId: f.fund, amount: 100, frequency: 'Monthly', startDate: '2026-01-01', endDate: '2026-12-31' }) },
  'GET /api/finance/pledges/:id': { params: { id: 'pledge' } },
  'DELETE /api/finance/pledges/:id': { params: { id: 'pledge' } },
  'PUT /api/finance/pledges/:id': { params: { id: 'pledge' }, body: () => ({ campaign: 'c' }) },
  'GET /api/finance/statements/:contactId': { params: { contactId: 'contact' } },
  'GET /api/finance/statements/households/:id': { params: { id: 'household' } },
  'POST /api/finance/statements/bulk': { body: () => ({}) },
  'GET /api/finance/summary': {},
  // groups
  'GET /api/groups': {},
  'POST /api/groups': { body: (f) => ({ name: 'Matrix', categoryId: f.groupCategory, parentId: f.group }) },
  'GET /api/groups/:id': { params: { id: 'group' } },
  'DELETE /api/groups/:id': { params: { id: 'group' } },
  'PUT /api/groups/:id': { params: { id: 'group' }, body: () => ({ details: 'd' }) },
  'GET /api/groups/categories': {},
  'POST /api/groups/categories': { body: () => ({ name: 'Matrix category' }) },
  'GET /api/groups/combo': {},
  'POST /api/groups/import': { body: () => ({ groups: [] }) },
  'GET /api/groups/membership': {},
  'POST /api/groups/membership': { body: (f) => ({ groupId: f.group, contactId: f.contact }) },
  'GET /api/groups/membership-request': {},
  // A request to join may be made for any group the caller sees (groups:read; own contact).
  'POST /api/groups/membership-request': { body: (f) => ({ groupId: f.group }), visibleNotLed: 201 },
  'PUT /api/groups/membership-request/:id/approve': { params: { id: 'membershipRequest' } },
  'PUT /api/groups/membership-request/:id/reject': { params: { id: 'membershipRequest' } },
  'DELETE /api/groups/membership/:id': { params: { id: 'membership' } },
  'PUT /api/groups/membership/:id': { params: { id: 'membership' }, body: () => ({ isActive: true }) },
  'GET /api/health': {},
  // notifications
  'GET /api/notifications': {},
  'PUT /api/notifications/:id/read': { params: { id: 'notification' } },
  'GET /api/notifications/messages': {},
  'POST /api/notifications/messages': { body: (f) => ({ audience: { contactIds: [f.contact] }, subject: 's', body: 'b' }) },
  'POST /api/notifications/messages/preview': { body: (f) => ({ audience: { contactIds: [f.contact] }, subject: 's', body: 'b' }) },
  'GET /api/notifications/messages/:id': { params: { id: 'message' } },
  'GET /api/notifications/messages/:id/deliveries': { params: { id: 'message' } },
  'GET /api/notifications/preferences': {},
  'PUT /api/notifications/preferences': { body: () => ({}) },
  'PUT /api/notifications/read-all': {},
  'GET /api/notifications/templates': {},
  'POST /api/notifications/templates': { body: () => ({ name: 'Matrix', subject: 's', body: 'b' }) },
  'DELETE /api/notifications/templates/:id': { params: { id: 'template' } },
  'GET /api/notifications/templates/:id': { params: { id: 'template' } },
  'PUT /api/notifications/templates/:id': { params: { id: 'template' }, body: () => ({ subject: 's2' }) },
  'GET /api/notifications/unread-count': {},
  'GET /api/notifications/webhooks': {},
  'POST /api/notifications/webhooks': { body: () => ({ url: 'https://hooks.example.org/m', events: ['contact.updated'] }) },
  'DELETE /api/notifications/webhooks/:id': { params: { id: 'webhook' } },
  'GET /api/notifications/webhooks/:id': { params: { id: 'webhook' } },
  'PUT /api/notifications/webhooks/:id': { params: { id: 'webhook' }, body: () => ({ description: 'd' }) },
  'GET /api/notifications/webhooks/:id/deliveries': { params: { id: 'webhook' } },
  'POST /api/notifications/webhooks/:id/rotate-secret': { params: { id: 'webhook' } },
  'POST /api/notifications/webhooks/:id/test': { params: { id: 'webhook' } },
  'POST /api/notifications/webhooks/deliveries/:id/redeliver': { params: { id: 'delivery' } },
  'GET /api/notifications/webhooks/events': {},
  // reports
  'GET /api/reports': {},
  'GET /api/reports/:key': { params: { key: { value: 'attendance-trend' } } },
  'DELETE /api/reports/submissions/:id': { params: { id: 'submission' } },
  'PUT /api/reports/submissions/:id': { params: { id: 'submission' }, body: () => ({ values: { attendance: 3 } }) },
  'GET /api/reports/templates': {},
  'POST /api/reports/templates': { body: (f) => ({ name: 'Matrix', groupCategoryId: f.groupCategory, fields: [{ key: 'n', label: 'N', type: 'number', required: true }] }) },
  'DELETE /api/reports/templates/:id': { params: { id: 'reportTemplate' } },
  'GET /api/reports/templates/:id': { params: { id: 'reportTemplate' } },
  'PUT /api/reports/templates/:id': { params: { id: 'reportTemplate' }, body: () => ({ description: 'd' }) },
  'GET /api/reports/templates/:id/rollup': { params: { id: 'reportTemplate' } },
  'GET /api/reports/templates/:id/submissions': { params: { id: 'reportTemplate' } },
  'POST /api/reports/templates/:id/submissions': { params: { id: 'reportTemplate' }, body: (f) => ({ groupId: f.group, period: '2026-02-02', values: { attendance: 3 } }) },
  // roles, search, tenants, users
  'GET /api/roles': {},
  'POST /api/roles': { body: () => ({ name: 'Matrix role', permissions: [] }) },
  'GET /api/roles/:id': { params: { id: 'role' } },
  'DELETE /api/roles/:id': { params: { id: 'role' } },
  'PUT /api/roles/:id': { params: { id: 'role' }, body: () => ({ description: 'd' }) },
  'GET /api/roles/permissions': {},
  'GET /api/search': { query: 'q=ab' },
  'POST /api/search/contacts': { body: () => ({ conditions: [] }) },
  'GET /api/search/lists': {},
  'POST /api/search/lists': { body: () => ({ name: 'Matrix', criteria: { conditions: [] } }) },
  'DELETE /api/search/lists/:id': { params: { id: 'list' } },
  'GET /api/search/lists/:id': { params: { id: 'list' } },
  'PUT /api/search/lists/:id': { params: { id: 'list' }, body: () => ({ name: 'Renamed' }) },
  'GET /api/search/lists/:id/contacts': { params: { id: 'list' } },
  'GET /api/tasks': {},
  'POST /api/tasks': { body: (f) => ({ title: 'Matrix', contactId: f.contact }) },
  'GET /api/tasks/:id': { params: { id: 'task' } },
  'PUT /api/tasks/:id': { params: { id: 'task' }, body: () => ({ priority: 'High' }) },
  'DELETE /api/tasks/:id': { params: { id: 'task' } },
  'POST /api/tasks/:id/comments': { params: { id: 'task' }, body: () => ({ body: 'c' }) },
  'GET /api/tasks/automations': {},
  'POST /api/tasks/automations': { body: () => ({ name: 'Matrix', trigger: 'contact.created', action: { type: 'createTask', title: 't' } }) },
  'GET /api/tasks/automations/:id': { params: { id: 'automation' } },
  'DELETE /api/tasks/automations/:id': { params: { id: 'automation' } },
  'PUT /api/tasks/automations/:id': { params: { id: 'automation' }, body: () => ({ name: 'Renamed' }) },
  // Per-item results: ids not found are listed as skipped.
  'POST /api/tasks/bulk': { body: (f) => ({ ids: [f.task], action: 'complete' }), foreignIds: 200 },
  'GET /api/tasks/cards': {},
  'DELETE /api/tasks/cards/:id': { params: { id: 'card' } },
  'PUT /api/tasks/cards/:id/move': { params: { id: 'card' }, body: () => ({ direction: 'next' }) },
  'GET /api/tasks/pipelines': {},
  'POST /api/tasks/pipelines': { body: () => ({ name: 'Matrix', steps: [{ name: 'One', dueInDays: 1 }] }) },
  'GET /api/tasks/pipelines/:id': { params: { id: 'pipeline' } },
  'DELETE /api/tasks/pipelines/:id': { params: { id: 'pipeline' } },
  'PUT /api/tasks/pipelines/:id': { params: { id: 'pipeline' }, body: () => ({ description: 'd' }) },
  'GET /api/tasks/pipelines/:id/board': { params: { id: 'pipeline' } },
  'POST /api/tasks/pipelines/:id/cards': { params: { id: 'pipeline' }, body: (f) => ({ contactId: f.contact }) },
  'GET /api/tenants/current': {},
  'PUT /api/tenants/current': { body: () => ({ name: 'Renamed church' }) },
  'GET /api/users': {},
  'POST /api/users': { body: () => ({ username: 'matrix-user', firstName: 'M', lastName: 'U' }) },
  'GET /api/users/:id': { params: { id: 'user' } },
  'DELETE /api/users/:id': { params: { id: 'user' } },
  'POST /api/users/:id/invitation': { params: { id: 'user' } },
  'PUT /api/users/:id': { params: { id: 'user' }, body: () => ({ status: 'Active' }) },
  'GET /api/users/me': {},
  'PUT /api/users/me/password': { body: () => ({ currentPassword: 'x', newPassword: 'y' }) },
  // public routes (no permission cells; the fuzz uses the bodies)
  'POST /api/auth/forgot-password': { body: () => ({ churchName: 'nowhere', username: 'nobody' }) },
  'POST /api/auth/login': { body: () => ({ churchName: 'nowhere', username: 'nobody', password: 'wrong password' }) },
  'POST /api/auth/logout': { body: () => ({ refreshToken: 'x' }) },
  'POST /api/auth/refresh': { body: () => ({ refreshToken: 'x' }) },
  'PUT /api/auth/reset-password/:token': { params: { token: { value: 'not-a-token' } }, body: () => ({ password: 'long enough password' }) },
  'POST /api/register': { body: () => ({ churchName: 'nowhere', username: 'u', email: 'u@example.org', password: 'long enough password', firstName: 'F', lastName: 'L' }) },
  'GET /api/tenants': {},
};

/** The URL of an entry with the given fixtures, and the kinds it named (path and body). */
export function requestOf(route: string, entry: RouteEntry, f: Fixtures) {
  const used = new Set<Kind>();
  const tracked = new Proxy(f, { get: (target, key: string) => (used.add(key as Kind), target[key as Kind]) });
  const [method, pattern] = route.split(' ');
  let url = pattern;
  for (const [name, kind] of Object.entries(entry.params ?? {})) {
    url = url.replace(`:${name}`, typeof kind === 'string' ? String(tracked[kind]) : kind.value);
  }
  if (entry.query) url += `?${entry.query}`;
  const payload = entry.body?.(tracked);
  return { method: method as 'GET', url, payload: payload as Record<string, unknown> | undefined, used };
}
