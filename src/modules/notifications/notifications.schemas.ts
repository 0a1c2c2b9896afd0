import { Type, type Static } from 'typebox';
import { MESSAGE_DELIVERY_STATUSES, MESSAGE_STATUSES, WEBHOOK_DELIVERY_STATUSES } from '../../db/schema/notifications.js';
import { Body, Id, Instant, Name, Nullable, PageQueryProps, StringEnum } from '../../lib/schemas.js';

/** Wire format of /api/notifications (modules-contract §6). */

/** The change types that notify someone (in-app and/or by email); `type` of a notification. */
export const NOTIFICATION_TYPES = [
  'task.assigned',
  'membership_request.created',
  'membership_request.approved',
  'membership_request.rejected',
  'request.created',
  'report.missing',
  'message.failed',
] as const;
export type NotificationType = (typeof NOTIFICATION_TYPES)[number];

export const NotificationSchema = Type.Object({
  id: Type.Integer(),
  type: Type.String(),
  title: Type.String(),
  body: Type.String(),
  link: Nullable(Type.Object({ entityType: Type.String(), entityId: Type.Integer() })),
  createdAt: Instant,
  readAt: Nullable(Instant),
});
export type NotificationItem = Static<typeof NotificationSchema>;

export const ListNotificationsQuery = Type.Object({
  unread: Type.Optional(Type.Boolean({ description: 'true: only unread; false: only read; absent: all' })),
  ...PageQueryProps,
});
export type ListNotificationsQuery = Static<typeof ListNotificationsQuery>;

const channelPrefs = Type.Object(Object.fromEntries(NOTIFICATION_TYPES.map((t) => [t, Type.Boolean()])) as Record<NotificationType, ReturnType<typeof Type.Boolean>>);
const channelPrefsInput = Body(
  Object.fromEntries(NOTIFICATION_TYPES.map((t) => [t, Type.Optional(Type.Boolean())])) as Record<NotificationType, ReturnType<typeof Type.Optional<ReturnType<typeof Type.Boolean>>>>,
);

export const PreferencesSchema = Type.Object(
  { email: channelPrefs, inApp: channelPrefs },
  { description: 'Every notification type, per channel; a type not set is true (in-app and by email)' },
);
export type Preferences = Static<typeof PreferencesSchema>;

export const UpdatePreferencesBody = Body(
  { email: Type.Optional(channelPrefsInput), inApp: Type.Optional(channelPrefsInput) },
  { description: 'Only the types named change; unknown types are ignored' },
);
export type UpdatePreferencesBody = Static<typeof UpdatePreferencesBody>;

// Messages and templates

const Subject = Type.String({ minLength: 1, maxLength: 200 });
const MessageBodyText = Type.String({ minLength: 1, maxLength: 50_000 });

export const TemplateSchema = Type.Object({
  id: Type.Integer(),
  name: Type.String(),
  subject: Type.String(),
  body: Type.String(),
  createdAt: Instant,
  updatedAt: Instant,
});
export type TemplateItem = Static<typeof TemplateSchema>;

export const CreateTemplateBody = Body(
  { name: Name, subject: Subject, body: MessageBodyText },
  { description: 'Merge fields {{firstName}}, {{lastName}}, {{churchName}}; any other {{field}} is 400' },
);
export type CreateTemplateBody = Static<typeof CreateTemplateBody>;
export const UpdateTemplateBody = Body({ name: Type.Optional(Name), subject: Type.Optional(Subject), body: Type.Optional(MessageBodyText) });
export type UpdateTemplateBody = Static<typeof UpdateTemplateBody>;

export const CreateMessageBody = Body(
  {
    channel: Type.Optional(StringEnum(['Email'] as const, { description: 'Only Email (default)' })),
    audience: Body(
      {
        contactIds: Type.Optional(Type.Array(Id, { maxItems: 10_000, uniqueItems: false })),
        groupIds: Type.Optional(Type.Array(Id, { maxItems: 1000, description: 'Active members of each group and of its visible subtree' })),
        listId: Type.Optional(Id),
      },
      { description: 'At least one of contactIds, groupIds, listId; recipients are deduplicated' },
    ),
    subject: Type.Optional(Subject),
    body: Type.Optional(MessageBodyText),
    templateId: Type.Optional(Id),
  },
  { description: 'subject and body, or a templateId (its subject and body; a subject or body given here overrides the template\'s)' },
);
export type CreateMessageBody = Static<typeof CreateMessageBody>;

export const MessageAcceptedSchema = Type.Object({
  id: Type.Integer(),
  status: Type.Literal('Queued'),
  recipientCount: Type.Integer(),
  skipped: Type.Object({ noEmail: Type.Integer(), optedOut: Type.Integer() }),
});

const PreviewContact = Type.Object({ id: Type.Integer(), firstName: Type.String(), lastName: Type.String() });
export const MessagePreviewSchema = Type.Object({
  recipientCount: Type.Integer({ description: 'How many emails a send would queue' }),
  skippedCount: Type.Object({ noEmail: Type.Integer(), optedOut: Type.Integer() }),
  skipped: Type.Array(
    Type.Object({ contact: PreviewContact, reason: StringEnum(['noEmail', 'optedOut'] as const) }),
    { description: 'The contacts a send would skip and why, by contact id (the first 100; skippedCount counts them all)' },
  ),
  first: Nullable(Type.Object(
    { contact: PreviewContact, to: Type.String(), subject: Type.String(), body: Type.String() },
    { description: 'The first recipient\'s email with the merge fields filled in (null: nobody would receive it)' },
  )),
});

export const MessageSchema = Type.Object({
  id: Type.Integer(),
  channel: Type.String(),
  subject: Type.String(),
  body: Type.String(),
  templateId: Nullable(Type.Integer()),
  audience: Type.Object({
    contactIds: Type.Optional(Type.Array(Type.Integer())),
    groupIds: Type.Optional(Type.Array(Type.Integer())),
    listId: Type.Optional(Type.Integer()),
  }),
  status: StringEnum(MESSAGE_STATUSES),
  recipientCount: Type.Integer(),
  skipped: Type.Object({ noEmail: Type.Integer(), optedOut: Type.Integer() }),
  sent: Type.Integer(),
  failed: Type.Integer(),
  createdBy: Nullable(Type.Integer()),
  createdAt: Instant,
  completedAt: Nullable(Instant),
});
export type MessageItem = Static<typeof MessageSchema>;

export const ListMessagesQuery = Type.Object({ status: Type.Optional(StringEnum(MESSAGE_STATUSES)), ...PageQueryProps });
export type ListMessagesQuery = Static<typeof ListMessagesQuery>;

export const MessageDeliverySchema = Type.Object({
  id: Type.Integer(),
  contact: Type.Object({ id: Type.Integer(), firstName: Type.String(), lastName: Type.String() }),
  email: Type.String(),
  status: StringEnum(MESSAGE_DELIVERY_STATUSES),
  error: Nullable(Type.String()),
  sentAt: Nullable(Instant),
});
export const ListMessageDeliveriesQuery = Type.Object({ status: Type.Optional(StringEnum(MESSAGE_DELIVERY_STATUSES)), ...PageQueryProps });
export type ListMessageDeliveriesQuery = Static<typeof ListMessageDeliveriesQuery>;

// Webhooks

export const WebhookEventSchema = Type.Object({ type: Type.String(), description: Type.String() });

const WebhookUrl = Type.String({ minLength: 1, maxLength: 2000, description: 'https (http only to loopback outside production); no credentials; never a private address in production' });
const WebhookEvents = Type.Array(Type.String({ minLength: 1, maxLength: 100 }), {
  minItems: 1,
  maxItems: 100,
  description: 'Change types (GET /webhooks/events), or ["*"] for every type',
});

export const WebhookSchema = Type.Object({
  id: Type.Integer(),
  url: Type.String(),
  events: Type.Array(Type.String()),
  description: Nullable(Type.String()),
  isActive: Type.Boolean(),
  ownerUserId: Nullable(Type.Integer({ description: 'The user who created or last changed it: deliveries carry only what this user may read at the moment of sending (null: nobody, nothing is delivered)' })),
  createdAt: Instant,
  updatedAt: Instant,
});
export type WebhookItem = Static<typeof WebhookSchema>;
export const WebhookWithSecretSchema = Type.Object({
  ...WebhookSchema.properties,
  secret: Type.String({ description: 'Shown once: signs every delivery (Parish-Signature)' }),
});

export const CreateWebhookBody = Body({
  url: WebhookUrl,
  events: WebhookEvents,
  description: Type.Optional(Nullable(Type.String({ maxLength: 5000 }))),
  isActive: Type.Optional(Type.Boolean({ default: true })),
});
export type CreateWebhookBody = Static<typeof CreateWebhookBody>;
export const UpdateWebhookBody = Body({
  url: Type.Optional(WebhookUrl),
  events: Type.Optional(WebhookEvents),
  description: Type.Optional(Nullable(Type.String({ maxLength: 5000 }))),
  isActive: Type.Optional(Type.Boolean()),
});
export type UpdateWebhookBody = Static<typeof UpdateWebhookBody>;

export const WebhookDeliverySchema = Type.Object({
  id: Type.Integer(),
  webhookId: Type.Integer(),
  changeId: Type.Integer(),
  type: Type.String(),
  status: StringEnum(WEBHOOK_DELIVERY_STATUSES),
  attempts: Type.Integer(),
  lastStatusCode: Nullable(Type.Integer()),
  lastError: Nullable(Type.String()),
  nextAttemptAt: Nullable(Instant),
  deliveredAt: Nullable(Instant),
  redeliveryOf: Nullable(Type.Integer()),
  createdAt: Instant,
});
export type WebhookDeliveryItem = Static<typeof WebhookDeliverySchema>;
export const ListWebhookDeliveriesQuery = Type.Object({ status: Type.Optional(StringEnum(WEBHOOK_DELIVERY_STATUSES)), ...PageQueryProps });
export type ListWebhookDeliveriesQuery = Static<typeof ListWebhookDeliveriesQuery>;
