import { Type, type Static } from 'typebox';
import { CHECKIN_STATUSES, RECORD_KINDS, SERVICE_FREQUENCIES, SESSION_SOURCES } from '../../db/schema/attendance.js';
import { GENDERS } from '../../db/schema/enums.js';
import { HOUSEHOLD_ROLES } from '../../db/schema/households.js';
import { Body, DateString, Email, Id, Instant, LongText, MetaData, Name, Nullable, PageQueryProps, Phone, StringEnum } from '../../lib/schemas.js';

/** Wire format of /api/attendance (modules-contract §1). */

export const Ref = Type.Object({ id: Type.Integer(), name: Type.String() });
export const ContactRef = Type.Object({ id: Type.Integer(), firstName: Type.String(), lastName: Type.String() });
export type ContactRef = Static<typeof ContactRef>;

const Frequency = StringEnum(SERVICE_FREQUENCIES);
const Kind = StringEnum(RECORD_KINDS);
const Source = StringEnum(SESSION_SOURCES);
const CheckinStatus = StringEnum(CHECKIN_STATUSES);
const DayOfWeek = Type.Integer({ minimum: 0, maximum: 6, description: '0 = Sunday … 6 = Saturday' });
const StartTime = Type.String({ pattern: '^([01][0-9]|2[0-3]):[0-5][0-9]$', description: 'HH:MM, 24 h (00:00–23:59)' });
const HeadcountTypes = Type.Array(Name, { maxItems: 20, uniqueItems: true });

const hierarchy = {
  groupId: Type.Optional(Id),
  includeDescendants: Type.Optional(Type.Boolean({ default: true, description: "Include the group's whole subtree (visible groups only)" })),
};

// Services ------------------------------------------------------------------------------------

export const ServiceSchema = Type.Object({
  id: Type.Integer(),
  name: Type.String(),
  group: Ref,
  dayOfWeek: Type.Integer(),
  startTime: Type.String(),
  frequency: Frequency,
  headcountTypes: Type.Array(Type.String()),
  isActive: Type.Boolean(),
  metaData: MetaData,
});
export type ServiceItem = Static<typeof ServiceSchema>;

export const CreateServiceBody = Body({
  name: Name,
  groupId: Id,
  dayOfWeek: DayOfWeek,
  startTime: StartTime,
  frequency: Type.Optional(Frequency),
  headcountTypes: Type.Optional(HeadcountTypes),
  metaData: Type.Optional(MetaData),
});
export type CreateServiceBody = Static<typeof CreateServiceBody>;

export const UpdateServiceBody = Body({
  name: Type.Optional(Name),
  groupId: Type.Optional(Id),
  dayOfWeek: Type.Optional(DayOfWeek),
  startTime: Type.Optional(StartTime),
  frequency: Type.Optional(Frequency),
  headcountTypes: Type.Optional(HeadcountTypes),
  isActive: Type.Optional(Type.Boolean()),
  metaData: Type.Optional(MetaData),
});
export type UpdateServiceBody = Static<typeof UpdateServiceBody>;

export const ListServicesQuery = Type.Object({ ...PageQueryProps, ...hierarchy, isActive: Type.Optional(Type.Boolean()) });
export type ListServicesQuery = Static<typeof ListServicesQuery>;

// Sessions and records ---------------------------------------------------------------------------

export const SessionSchema = Type.Object({
  id: Type.Integer(),
  date: Type.String(),
  source: Source,
  service: Nullable(Ref),
  group: Nullable(Ref),
  event: Nullable(Ref),
  didNotMeet: Type.Boolean(),
  notes: Nullable(Type.String()),
  presentCount: Type.Integer(),
  guestCount: Type.Integer(),
  firstTimeCount: Type.Integer(),
  headcountTotal: Type.Integer(),
});
export type SessionItem = Static<typeof SessionSchema>;

/** A created session, with what may be a mistake said, not refused (a special service on another day is allowed). */
export const CreatedSessionSchema = Type.Intersect([
  SessionSchema,
  Type.Object({
    warnings: Type.Array(Type.String(), {
      description: 'Empty, or what looks like a slip: a service session on another weekday than the service\'s, or a date after today in the tenant\'s time zone',
    }),
  }),
]);
export type CreatedSession = Static<typeof CreatedSessionSchema>;

export const RecordSchema = Type.Object({
  id: Type.Integer(),
  sessionId: Type.Integer(),
  date: Type.String(),
  source: Source,
  group: Nullable(Ref),
  service: Nullable(Ref),
  event: Nullable(Ref),
  /** null once the person was erased: the record stays as a count. */
  contact: Nullable(ContactRef),
  kind: Kind,
  isFirstTime: Type.Boolean(),
  checkedInAt: Nullable(Instant),
});
export type RecordItem = Static<typeof RecordSchema>;

export const Headcount = Type.Object({ type: Type.String(), count: Type.Integer() });

export const SessionDetailSchema = Type.Object({
  ...SessionSchema.properties,
  records: Type.Array(RecordSchema),
  headcounts: Type.Array(Headcount),
});
export type SessionDetail = Static<typeof SessionDetailSchema>;

export const CreateSessionBody = Body(
  {
    serviceId: Type.Optional(Id),
    groupId: Type.Optional(Id),
    eventId: Type.Optional(Id),
    date: DateString,
    notes: Type.Optional(Nullable(LongText)),
    didNotMeet: Type.Optional(Type.Boolean()),
  },
  { description: 'Exactly one of serviceId, groupId, eventId. An event session must be dated within the event.' },
);
export type CreateSessionBody = Static<typeof CreateSessionBody>;

export const UpdateSessionBody = Body({ notes: Type.Optional(Nullable(LongText)), didNotMeet: Type.Optional(Type.Boolean()) });
export type UpdateSessionBody = Static<typeof UpdateSessionBody>;

export const ListSessionsQuery = Type.Object({
  ...PageQueryProps,
  ...hierarchy,
  serviceId: Type.Optional(Id),
  eventId: Type.Optional(Id),
  from: Type.Optional(DateString),
  to: Type.Optional(DateString),
});
export type ListSessionsQuery = Static<typeof ListSessionsQuery>;

export const RecordsBody = Body({
  contactIds: Type.Array(Id, { minItems: 1, maxItems: 1000, uniqueItems: true }),
  kind: Type.Optional(Kind),
});
export type RecordsBody = Static<typeof RecordsBody>;

export const RecordsResult = Type.Object({
  created: Type.Array(RecordSchema),
  skipped: Type.Array(Type.Object({ contactId: Type.Integer(), reason: Type.String() })),
});

export const GuestBody = Body({
  firstName: Name,
  lastName: Name,
  phone: Type.Optional(Nullable(Phone)),
  email: Type.Optional(Nullable(Email)),
  gender: Type.Optional(Nullable(StringEnum(GENDERS))),
});
export type GuestBody = Static<typeof GuestBody>;

export const GuestResult = Type.Object({
  contact: Type.Object({
    ...ContactRef.properties,
    isNew: Type.Boolean({ description: 'false when an existing Person matched by email or phone digits' }),
    matchedBy: Nullable(StringEnum(['email', 'phone'] as const, { description: 'What matched a returning guest (email first); null for a new Person' })),
  }),
  record: RecordSchema,
});

export const HeadcountsBody = Body({
  counts: Type.Array(Body({ type: Name, count: Type.Integer({ minimum: 0, maximum: 1_000_000 }) }), { maxItems: 50 }),
});
export type HeadcountsBody = Static<typeof HeadcountsBody>;
export const HeadcountsResult = Type.Object({ data: Type.Array(Headcount) });

export const ListRecordsQuery = Type.Object({
  ...PageQueryProps,
  ...hierarchy,
  contactId: Type.Optional(Id),
  serviceId: Type.Optional(Id),
  eventId: Type.Optional(Id),
  kind: Type.Optional(Kind),
  from: Type.Optional(DateString),
  to: Type.Optional(DateString),
});
export type ListRecordsQuery = Static<typeof ListRecordsQuery>;

export const SessionParams = Type.Object({ id: Id });
export const RecordParams = Type.Object({ id: Id, contactId: Id });

// Summary and absentees --------------------------------------------------------------------------

export const SummaryQuerySchema = Type.Object({
  ...hierarchy,
  serviceId: Type.Optional(Id),
  from: Type.Optional(DateString),
  to: Type.Optional(DateString),
  interval: Type.Optional(StringEnum(['week', 'month'] as const, { description: 'Weeks start on Sunday, in the tenant time zone' })),
});

const Totals = { sessions: Type.Integer(), present: Type.Integer(), guests: Type.Integer(), firstTime: Type.Integer(), headcount: Type.Integer() };
export const SummarySchema = Type.Object({
  from: Type.String(),
  to: Type.String(),
  interval: Type.String(),
  data: Type.Array(Type.Object({ period: Type.String(), ...Totals, averagePresent: Type.Number() })),
  totals: Type.Object(Totals),
});

export const AbsenteesQuerySchema = Type.Object({
  ...PageQueryProps,
  ...hierarchy,
  missed: Type.Optional(Type.Integer({ minimum: 1, maximum: 52, default: 3 })),
});

export const AbsenteeSchema = Type.Object({
  contact: ContactRef,
  group: Ref,
  missedSessions: Type.Integer(),
  lastAttendedOn: Nullable(Type.String()),
});

// Check-in ----------------------------------------------------------------------------------------

export const CheckinSchema = Type.Object({
  id: Type.Integer(),
  sessionId: Type.Integer(),
  contact: ContactRef,
  room: Nullable(Ref),
  securityCode: Type.String(),
  status: CheckinStatus,
  checkedInAt: Instant,
  checkedOutAt: Nullable(Instant),
});
export type CheckinItem = Static<typeof CheckinSchema>;

export const CreateCheckinBody = Body({
  sessionId: Id,
  contactIds: Type.Array(Id, { minItems: 1, maxItems: 20, uniqueItems: true }),
  roomGroupId: Type.Optional(Nullable(Id)),
  rooms: Type.Optional(Type.Array(Type.Object({ contactId: Id, roomGroupId: Nullable(Id) }, { additionalProperties: false }), {
    maxItems: 20,
    description: 'A room per contact (each among contactIds, at most once), overriding roomGroupId: one family, one code, children in different rooms',
  })),
});
export type CreateCheckinBody = Static<typeof CreateCheckinBody>;

export const CheckinResult = Type.Object({ securityCode: Type.String(), checkIns: Type.Array(CheckinSchema) });

export const ListCheckinsQuery = Type.Object({
  ...PageQueryProps,
  sessionId: Type.Optional(Id),
  securityCode: Type.Optional(Type.String({ maxLength: 10 })),
  status: Type.Optional(CheckinStatus),
});
export type ListCheckinsQuery = Static<typeof ListCheckinsQuery>;

export const CheckoutBody = Body({ sessionId: Id, securityCode: Type.String({ minLength: 1, maxLength: 10 }) });
export type CheckoutBody = Static<typeof CheckoutBody>;

export const LabelSchema = Type.Object({
  firstName: Type.String(),
  lastName: Type.String(),
  securityCode: Type.String(),
  room: Nullable(Type.String()),
  sessionDate: Type.String(),
  serviceName: Nullable(Type.String()),
  checkinNote: Nullable(Type.String({ description: "The person's check-in note (allergies, medical or custody notes), printed on their label" })),
});

export const LabelsQuery = Type.Object({
  ids: Type.String({ pattern: '^[1-9][0-9]{0,15}(,[1-9][0-9]{0,15}){0,19}$', description: 'Check-in ids, comma-separated (1–20): those of one or more families just checked in' }),
});
export type LabelsQuery = Static<typeof LabelsQuery>;

/** A session a kiosk may pick: dated today in the tenant's time zone and visible to the caller. */
export const KioskSessionSchema = Type.Object({
  id: Type.Integer(),
  date: Type.String(),
  name: Type.String({ description: 'The service name, else the event name, else the meeting group name' }),
  startTime: Nullable(Type.String({ description: "The service's start time (HH:MM), null for a group meeting or an event" })),
  rooms: Type.Array(Ref, { description: "The rooms to check children into: the groups right below the session's group that the caller sees, by name" }),
});

export const CheckinLookupQuery = Type.Object({
  q: Type.String({ minLength: 1, maxLength: 100, description: 'A last name (its beginning, at least 2 letters; case and accents ignored) or at least 4 digits of a phone number' }),
});
export type CheckinLookupQuery = Static<typeof CheckinLookupQuery>;

/** Names, ages and roles only (modules-contract §8): nothing else about anyone reaches a kiosk. */
export const LookupPersonSchema = Type.Object({
  id: Type.Integer(),
  firstName: Type.String(),
  lastName: Type.String(),
  age: Nullable(Type.Integer({ description: 'Whole years on today in the tenant time zone; null without a date of birth' })),
  role: Nullable(StringEnum(HOUSEHOLD_ROLES)),
});
export type LookupPerson = Static<typeof LookupPersonSchema>;
export const CheckinLookupResult = Type.Object({
  data: Type.Array(Type.Object({ household: Nullable(Ref), people: Type.Array(LookupPersonSchema) }), { maxItems: 20 }),
});
export type CheckinLookupResult = Static<typeof CheckinLookupResult>;
