import { Type, type Static } from 'typebox';
import { CHANGE_TYPES } from '../../changes/types.js';
import { DateString, Id, Instant, Nullable, PageQueryProps, StringEnum } from '../../lib/schemas.js';

/** Wire format of /api/audit and /api/crm/contacts/:id/timeline (modules-contract §7). */

const DateOrInstant = (description: string) =>
  Type.Optional(Type.Union([DateString, Instant], { description }));

export const AuditQuery = Type.Object({
  ...PageQueryProps,
  entityType: Type.Optional(Type.String({ minLength: 1, maxLength: 50, description: "A change type's prefix: contact, group, membership, event, task, contribution, …" })),
  entityId: Type.Optional(Id),
  actorUserId: Type.Optional(Id),
  type: Type.Optional(StringEnum(CHANGE_TYPES)),
  from: DateOrInstant(
    'Inclusive. A date (YYYY-MM-DD) means the start of that day in the tenant\'s time zone; an instant (ISO 8601) is taken as is.',
  ),
  to: DateOrInstant(
    'Inclusive. A date (YYYY-MM-DD) covers that whole day in the tenant\'s time zone; an instant (ISO 8601) is taken as is.',
  ),
});
export type AuditQuery = Static<typeof AuditQuery>;

export const AuditItem = Type.Object({
  id: Id,
  type: StringEnum(CHANGE_TYPES),
  occurredAt: Instant,
  actor: Nullable(Type.Object({ id: Id, username: Nullable(Type.String({ description: 'null when the account no longer exists' })) })),
  entity: Type.Object({ type: Type.String(), id: Type.Integer() }),
  changes: Nullable(Type.Record(Type.String(), Type.Object({ from: Type.Unknown(), to: Type.Unknown() }))),
  data: Type.Record(Type.String(), Type.Unknown()),
}, { description: 'A change the caller may read (see the route). Without finance:read, every key named amount or ending in Amount is left out of changes and data.' });
export type AuditItem = Static<typeof AuditItem>;

export const TimelineQuery = Type.Object(PageQueryProps);

export const TimelineItem = Type.Object({
  at: Instant,
  type: StringEnum(CHANGE_TYPES),
  summary: Type.String(),
  entity: Type.Object({ type: Type.String(), id: Type.Integer() }),
});
export type TimelineItem = Static<typeof TimelineItem>;
