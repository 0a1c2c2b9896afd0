import { Type, type Static } from 'typebox';
import { ACTIVITY_TYPES } from '../../db/schema/enums.js';
import { Body, DateString, Id, Instant, LongText, MetaData, Name, Nullable, PageQueryProps, StringEnum } from '../../lib/schemas.js';

/** Wire format of /api/events (api-contract §7). */

export const Ref = Type.Object({ id: Type.Integer(), name: Type.String() });
export const ContactRef = Type.Object({ id: Type.Integer(), firstName: Type.String(), lastName: Type.String() });
export type ContactRef = Static<typeof ContactRef>;

export const EventSchema = Type.Object({
  id: Type.Integer(),
  name: Type.String(),
  description: Nullable(Type.String()),
  startDate: Type.String(),
  endDate: Type.String(),
  group: Nullable(Ref),
  category: Nullable(Ref),
  metaData: MetaData,
  createdAt: Instant,
  updatedAt: Instant,
});
export type EventItem = Static<typeof EventSchema>;

export const RegistrationSchema = Type.Object({
  id: Type.Integer(),
  eventId: Type.Integer(),
  contactId: Type.Integer(),
  contact: ContactRef,
  createdAt: Instant,
});
export type RegistrationItem = Static<typeof RegistrationSchema>;

export const AttendanceSchema = Type.Object({
  id: Type.Integer(),
  eventId: Type.Integer(),
  contactId: Nullable(Type.Integer({ description: 'null once the person was erased: the record stays as a count' })),
  contact: Nullable(ContactRef),
  attendedAt: Instant,
});
export type AttendanceItem = Static<typeof AttendanceSchema>;

export const ActivitySchema = Type.Object({
  id: Type.Integer(),
  eventId: Type.Integer(),
  activityType: StringEnum(ACTIVITY_TYPES),
  notes: Nullable(Type.String()),
  contactIds: Type.Array(Type.Integer()),
  contacts: Type.Array(ContactRef),
  createdAt: Instant,
});
export type ActivityItem = Static<typeof ActivitySchema>;

export const EventDetailSchema = Type.Object({
  ...EventSchema.properties,
  /** The first 100 by id (ROSTER_IN_READ); all of them through GET /api/events/:id/registration. */
  registrations: Type.Array(RegistrationSchema),
  registrationCount: Type.Integer(),
  /** The first 100 by time; all of them through GET /api/events/:id/attendance. */
  attendance: Type.Array(AttendanceSchema),
  attendanceCount: Type.Integer(),
  /** The first 100 by id; all of them through GET /api/events/:id/activities. */
  activities: Type.Array(ActivitySchema),
  activityCount: Type.Integer(),
});
export type EventDetail = Static<typeof EventDetailSchema>;

export const CreateEventBody = Body({
  name: Name,
  description: Type.Optional(Nullable(LongText)),
  startDate: DateString,
  endDate: Type.Optional(DateString),
  groupId: Type.Optional(Nullable(Id)),
  categoryId: Type.Optional(Nullable(Id)),
  metaData: Type.Optional(MetaData),
});
export type CreateEventBody = Static<typeof CreateEventBody>;

/** PUT sends the changed fields; `null` clears description, group and category. */
export const UpdateEventBody = Body({
  name: Type.Optional(Name),
  description: Type.Optional(Nullable(LongText)),
  startDate: Type.Optional(DateString),
  endDate: Type.Optional(DateString),
  groupId: Type.Optional(Nullable(Id)),
  categoryId: Type.Optional(Nullable(Id)),
  metaData: Type.Optional(MetaData),
});
export type UpdateEventBody = Static<typeof UpdateEventBody>;

export const ListEventsQuery = Type.Object({
  ...PageQueryProps,
  groupId: Type.Optional(Id),
  includeSubgroups: Type.Optional(Type.Boolean({ default: false })),
  categoryId: Type.Optional(Id),
  from: Type.Optional(DateString),
  to: Type.Optional(DateString),
  q: Type.Optional(Type.String({ maxLength: 200 })),
});
export type ListEventsQuery = Static<typeof ListEventsQuery>;

export const PageOnlyQuery = Type.Object({ ...PageQueryProps });

export const ContactIdsBody = Body({
  contactIds: Type.Array(Id, { minItems: 1, maxItems: 1000, uniqueItems: true }),
});
export type ContactIdsBody = Static<typeof ContactIdsBody>;

export const SkippedSchema = Type.Object({ contactId: Type.Integer(), reason: Type.String() });
export type Skipped = Static<typeof SkippedSchema>;

export function CreatedResult<T extends typeof RegistrationSchema | typeof AttendanceSchema>(item: T) {
  return Type.Object({ created: Type.Array(item), skipped: Type.Array(SkippedSchema) });
}

export const CreateActivityBody = Body({
  activityType: StringEnum(ACTIVITY_TYPES),
  contactIds: Type.Array(Id, { minItems: 1, maxItems: 1000, uniqueItems: true }),
  notes: Type.Optional(Nullable(LongText)),
});
export type CreateActivityBody = Static<typeof CreateActivityBody>;

export const EventCategorySchema = Type.Object({ id: Type.Integer(), name: Type.String(), description: Nullable(Type.String()) });
export const CreateEventCategoryBody = Body({ name: Name, description: Type.Optional(Nullable(LongText)) });
export type CreateEventCategoryBody = Static<typeof CreateEventCategoryBody>;

export const EventParams = Type.Object({ id: Id });
export const RegistrationParams = Type.Object({ id: Id, registrationId: Id });
export const AttendanceParams = Type.Object({ id: Id, attendanceId: Id });
