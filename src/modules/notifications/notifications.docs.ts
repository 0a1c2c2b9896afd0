import { VISIBILITY, type ModuleDocs } from '../../plugins/operation-docs.js';

/** OpenAPI prose of /api/notifications: the inbox, preferences, messages, templates, webhooks (merged by the docs plugin). */
export const notificationsDocs: ModuleDocs = {
  'GET /api/notifications': { summary: 'The caller\'s notification inbox', description: 'Filter `unread=true`.', visibility: VISIBILITY.own },
  'GET /api/notifications/unread-count': { summary: 'How many notifications are unread', visibility: VISIBILITY.own },
  'PUT /api/notifications/read-all': { summary: 'Mark every notification read', visibility: VISIBILITY.own },
  'PUT /api/notifications/:id/read': { summary: 'Mark a notification read', visibility: VISIBILITY.own, errors: { 404: 'No notification with this id for the caller' } },
  'GET /api/notifications/preferences': { summary: 'The caller\'s notification preferences', description: 'Per notification type, whether it comes by email and in the inbox.', visibility: VISIBILITY.own },
  'PUT /api/notifications/preferences': {
    summary: 'Change the caller\'s notification preferences',
    description: 'Only the types sent change.',
    visibility: VISIBILITY.own,
    example: { email: { 'task.assigned': false }, inApp: { 'report.missing': true } },
  },
  'POST /api/notifications/messages': {
    summary: 'Send an email to contacts, groups or a saved list',
    visibility: `${VISIBILITY.tenant} Groups must be visible to the caller; a saved list is evaluated with the caller's visibility.`,
    errors: { 400: 'Neither subject and body nor a templateId', 404: 'A contact, group, list or template does not exist or is not visible' },
    example: { channel: 'Email', audience: { groupIds: [7] }, subject: 'Cell meeting moved', body: 'Dear {{firstName}}, this week we meet on Friday.' },
  },
  'POST /api/notifications/messages/preview': {
    summary: 'Preview a message before sending it',
    description: 'Who would receive it, who would be skipped and why, and the first recipient\'s text: nothing is queued or recorded.',
    visibility: `${VISIBILITY.tenant} Groups must be visible to the caller; a saved list is evaluated with the caller's visibility.`,
    errors: { 400: 'Neither subject and body nor a templateId; an unknown merge field', 404: 'A contact, group, list or template does not exist or is not visible' },
    example: { audience: { groupIds: [7] }, subject: 'Cell meeting moved', body: 'Dear {{firstName}}, this week we meet on Friday.' },
  },
  'GET /api/notifications/messages': { summary: 'List sent messages', visibility: VISIBILITY.tenant },
  'GET /api/notifications/messages/:id': { summary: 'Read a message with its delivery counts', visibility: VISIBILITY.tenant, errors: { 404: 'No message with this id in the tenant' } },
  'GET /api/notifications/messages/:id/deliveries': { summary: 'A message\'s deliveries', visibility: VISIBILITY.tenant, errors: { 404: 'No message with this id in the tenant' } },
  'GET /api/notifications/templates': { summary: 'List message templates', visibility: VISIBILITY.tenant },
  'POST /api/notifications/templates': {
    summary: 'Create a message template',
    description: 'Merge fields such as `{{firstName}}` are replaced per recipient.',
    visibility: VISIBILITY.tenant,
    errors: { 400: 'An unknown merge field', 409: 'A template with this name exists' },
    example: { name: 'Welcome', subject: 'Welcome to Grace Chapel, {{firstName}}', body: 'Dear {{firstName}}, it was a joy to have you with us.' },
  },
  'GET /api/notifications/templates/:id': { summary: 'Read a message template', visibility: VISIBILITY.tenant, errors: { 404: 'No template with this id in the tenant' } },
  'PUT /api/notifications/templates/:id': {
    summary: 'Update a message template',
    visibility: VISIBILITY.tenant,
    errors: { 400: 'An unknown merge field', 404: 'No template with this id in the tenant', 409: 'Another template has this name' },
    example: { subject: 'Welcome home, {{firstName}}' },
  },
  'DELETE /api/notifications/templates/:id': { summary: 'Delete a message template', visibility: VISIBILITY.tenant, errors: { 404: 'No template with this id in the tenant' } },
  'GET /api/notifications/webhooks/events': { summary: 'List the change types a webhook can subscribe to', visibility: VISIBILITY.tenant },
  'GET /api/notifications/webhooks': { summary: 'List webhooks', description: 'Secrets are never shown again.', visibility: VISIBILITY.tenant },
  'POST /api/notifications/webhooks': {
    summary: 'Register a webhook',
    visibility: VISIBILITY.tenant,
    description: 'The secret is shown in this answer only. A replay of its `Idempotency-Key` (24 hours) answers it again while the webhook exists; ' +
      'once the webhook is deleted the replay answers 410 (the stored answer withdrawn, its id and secret never handed back) and no webhook is created.',
    errors: {
      400: 'A URL that is not https, carries credentials or resolves to a private address; an unknown event type',
      403: 'Without webhooks:write; or subscribing beyond the caller\'s permissions (`["*"]` needs audit:read, each type its module\'s read permission)',
    },
    example: { url: 'https://hooks.example.org/parish', events: ['contact.created', 'contribution.created'], description: 'CRM sync' },
  },
  'GET /api/notifications/webhooks/:id': { summary: 'Read a webhook', visibility: VISIBILITY.tenant, errors: { 404: 'No webhook with this id in the tenant' } },
  'PUT /api/notifications/webhooks/:id': {
    summary: 'Update a webhook',
    visibility: VISIBILITY.tenant,
    errors: {
      400: 'A URL or event type as for create',
      403: 'Without webhooks:write; or the (new or kept) events go beyond the caller\'s permissions, as for create (the caller becomes the owner)',
      404: 'No webhook with this id in the tenant',
    },
    example: { isActive: false },
  },
  'DELETE /api/notifications/webhooks/:id': {
    summary: 'Delete a webhook',
    description: 'The stored answer of its create is withdrawn: replaying that `Idempotency-Key` answers 410, never the id and secret.',
    visibility: VISIBILITY.tenant,
    errors: { 404: 'No webhook with this id in the tenant' },
  },
  'POST /api/notifications/webhooks/:id/rotate-secret': {
    summary: 'Rotate a webhook\'s signing secret',
    description: 'The stored answer of the create that showed the old secret is withdrawn: replaying its `Idempotency-Key` answers 410.',
    visibility: VISIBILITY.tenant,
    errors: { 404: 'No webhook with this id in the tenant' },
  },
  'POST /api/notifications/webhooks/:id/test': { summary: 'Send a test delivery', visibility: VISIBILITY.tenant, errors: { 404: 'No webhook with this id in the tenant' } },
  'GET /api/notifications/webhooks/:id/deliveries': { summary: 'A webhook\'s deliveries', visibility: VISIBILITY.tenant, errors: { 404: 'No webhook with this id in the tenant' } },
  'POST /api/notifications/webhooks/deliveries/:id/redeliver': { summary: 'Deliver a change again', visibility: VISIBILITY.tenant, errors: { 404: 'No delivery with this id in the tenant' } },
};
