import { Type, type Static } from 'typebox';
import {
  CIVIL_STATUSES, CONTACT_CATEGORIES, CONTACT_STATUSES, GENDERS, IDENTIFICATION_TYPES, MEMBERSHIP_ROLES,
  OCCASION_TYPES, RELATIONSHIP_TYPES, REQUEST_STATUSES, REQUEST_TYPES,
} from '../../db/schema/enums.js';
import { HOUSEHOLD_ROLES } from '../../db/schema/households.js';
import { Body, DATE_PATTERN, DateString, Email, Id, Instant, MAX_ID, Name, Nullable, PageQueryProps, StringEnum } from '../../lib/schemas.js';

/** Wire format of /api/crm contacts (spec "Contact", api-contract §5). */

export const Category = StringEnum(CONTACT_CATEGORIES);
export const Status = StringEnum(CONTACT_STATUSES, { description: 'A new contact is Active' });
export const Gender = StringEnum(GENDERS);

/*
 * Optional inputs that also accept null (to clear a value on PUT). Declared with the `nullable`
 * keyword rather than a union, so a bad value is reported by its own rule ("must be a date",
 * "must be one of") instead of by the null branch, and coercion never turns null into ''.
 */
const OptText = (maxLength: number) => Type.Optional(Type.Unsafe<string | null>({ type: 'string', nullable: true, maxLength }));
const OptDate = Type.Optional(Type.Unsafe<string | null>({ type: 'string', nullable: true, format: 'date', pattern: DATE_PATTERN }));
const OptEnum = <const T extends readonly string[]>(values: T) =>
  Type.Optional(Type.Unsafe<T[number] | null>({ type: 'string', nullable: true, enum: [...values, null] }));
const PhoneText = Type.String({ minLength: 1, maxLength: 50, pattern: '[0-9]', description: 'Free text with at least one digit' });

const personOptional = {
  middleName: OptText(200),
  gender: OptEnum(GENDERS),
  civilStatus: OptEnum(CIVIL_STATUSES),
  dateOfBirth: OptDate,
  occupation: OptText(200),
  checkinNote: Type.Optional(Type.Unsafe<string | null>({
    type: 'string', nullable: true, maxLength: 200,
    description: 'Allergies, medical or custody notes (at most 200 characters), printed on the person\'s check-in label; never shown in the kiosk lookup',
  })),
};
export const PersonInput = Body({ firstName: Name, lastName: Name, ...personOptional });
export const PersonPatch = Body({ firstName: Type.Optional(Name), lastName: Type.Optional(Name), ...personOptional });

const companyOptional = { industry: OptText(200), website: OptText(200) };
export const CompanyInput = Body({ name: Name, ...companyOptional });
export const CompanyPatch = Body({ name: Type.Optional(Name), ...companyOptional });

const IsPrimary = Type.Optional(Type.Boolean({ description: 'At most one per array; when none is marked the first is primary' }));
export const EmailInput = Body({ value: Email, isPrimary: IsPrimary });
export const PhoneInput = Body({ value: PhoneText, isPrimary: IsPrimary });
export const AddressInput = Body({ street: OptText(200), city: OptText(200), country: OptText(200), isPrimary: IsPrimary });
export const OccasionInput = Body({ type: StringEnum(OCCASION_TYPES), date: DateString, details: OptText(5000) });
export const IdentificationInput = Body({ type: StringEnum(IDENTIFICATION_TYPES), value: Name, issuedBy: OptText(200), expiresOn: OptDate });

export const MAX_ITEMS = 20;
const arrays = {
  emails: Type.Optional(Type.Array(EmailInput, { maxItems: MAX_ITEMS })),
  phones: Type.Optional(Type.Array(PhoneInput, { maxItems: MAX_ITEMS })),
  addresses: Type.Optional(Type.Array(AddressInput, { maxItems: MAX_ITEMS })),
  occasions: Type.Optional(Type.Array(OccasionInput, { maxItems: 50 })),
  identifications: Type.Optional(Type.Array(IdentificationInput, { maxItems: MAX_ITEMS })),
};

const EmailOptOut = Type.Boolean({ description: 'Never sent messages (modules-contract §6); default false' });

export const CreateContactBody = Body({
  category: Category,
  status: Type.Optional(Status),
  emailOptOut: Type.Optional(EmailOptOut),
  person: Type.Optional(PersonInput),
  company: Type.Optional(CompanyInput),
  ...arrays,
});
export type CreateContactBody = Static<typeof CreateContactBody>;

/** PUT: scalars and person/company merge; a sent array replaces that array. */
export const UpdateContactBody = Body({
  category: Type.Optional(StringEnum(CONTACT_CATEGORIES, { description: 'Cannot change; accepted so a read contact can be sent back' })),
  status: Type.Optional(Status),
  emailOptOut: Type.Optional(EmailOptOut),
  person: Type.Optional(PersonPatch),
  company: Type.Optional(CompanyPatch),
  ...arrays,
});
export type UpdateContactBody = Static<typeof UpdateContactBody>;

export type EmailInput = Static<typeof EmailInput>;
export type PhoneInput = Static<typeof PhoneInput>;
export type AddressInput = Static<typeof AddressInput>;
export type OccasionInput = Static<typeof OccasionInput>;
export type IdentificationInput = Static<typeof IdentificationInput>;
export type PersonInput = Static<typeof PersonInput>;
export type PersonPatch = Static<typeof PersonPatch>;
export type CompanyInput = Static<typeof CompanyInput>;
export type CompanyPatch = Static<typeof CompanyPatch>;

// ---- output ----

const S = Type.String();
const NS = Nullable(Type.String());
export const PersonOut = Type.Object({
  firstName: S, lastName: S, middleName: NS, gender: NS, civilStatus: NS, dateOfBirth: NS, occupation: NS,
  checkinNote: Type.Optional(Nullable(Type.String({ description: 'Allergies, medical or custody notes printed on check-in labels' }))),
});
export const CompanyOut = Type.Object({ name: S, industry: NS, website: NS });
export const EmailOut = Type.Object({ value: S, isPrimary: Type.Boolean() });
export const PhoneOut = Type.Object({ value: S, isPrimary: Type.Boolean() });
export const AddressOut = Type.Object({ street: NS, city: NS, country: NS, isPrimary: Type.Boolean() });
export const OccasionOut = Type.Object({ id: Id, type: S, date: NS, details: NS });
export const IdentificationOut = Type.Object({ id: Id, type: S, value: S, issuedBy: NS, expiresOn: NS });

export const RelationshipItem = Type.Object({
  id: Id,
  contactId: Id,
  relatedContactId: Id,
  type: StringEnum(RELATIONSHIP_TYPES, { description: 'relatedContact is contact\'s <type>' }),
  relatedContact: Type.Object({ id: Id, firstName: NS, lastName: NS, name: S, category: Category }),
});
export const RequestItem = Type.Object({
  id: Id,
  contactId: Id,
  type: StringEnum(REQUEST_TYPES),
  description: S,
  status: StringEnum(REQUEST_STATUSES),
  createdAt: Instant,
  updatedAt: Instant,
});
export const GroupMembershipItem = Type.Object({
  id: Id,
  groupId: Id,
  group: Type.Object({ id: Id, name: S }),
  role: StringEnum(MEMBERSHIP_ROLES),
  isActive: Type.Boolean(),
});

export const ContactListItem = Type.Object({
  id: Id,
  category: Category,
  status: Status,
  person: Type.Optional(Type.Object({ firstName: S, lastName: S, gender: NS })),
  company: Type.Optional(Type.Object({ name: S })),
  emails: Type.Array(EmailOut),
  phones: Type.Array(PhoneOut),
  householdId: Type.Optional(Nullable(Type.Integer({ minimum: 1, description: 'The household the contact belongs to (contact lists)' }))),
});

export const ContactSchema = Type.Object({
  id: Id,
  category: Category,
  status: Status,
  emailOptOut: Type.Boolean(),
  person: Type.Optional(PersonOut),
  company: Type.Optional(CompanyOut),
  emails: Type.Array(EmailOut),
  phones: Type.Array(PhoneOut),
  addresses: Type.Array(AddressOut),
  occasions: Type.Array(OccasionOut),
  identifications: Type.Array(IdentificationOut),
  relationships: Type.Array(RelationshipItem),
  requests: Type.Array(RequestItem),
  groupMemberships: Type.Array(GroupMembershipItem),
  household: Nullable(Type.Object({ id: Id, name: S, role: StringEnum(HOUSEHOLD_ROLES) }, { description: 'The household the contact belongs to, and its role there (modules-contract §8)' })),
  createdAt: Instant,
  updatedAt: Instant,
});

export const ListContactsQuery = Type.Object({
  ...PageQueryProps,
  category: Type.Optional(Category),
  status: Type.Optional(Status),
  q: Type.Optional(Type.String({ maxLength: 200, description: 'Case-insensitive substring of names, company name, emails, phones' })),
  householdId: Type.Optional(Type.Integer({ minimum: 1, maximum: MAX_ID, description: 'Only the members of this household (none for an unknown one)' })),
});
export type ListContactsQuery = Static<typeof ListContactsQuery>;
export const CategoryListQuery = Type.Object({ ...PageQueryProps, status: Type.Optional(Status), q: ListContactsQuery.properties.q, householdId: ListContactsQuery.properties.householdId });
