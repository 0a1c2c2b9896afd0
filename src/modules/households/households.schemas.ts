import { Type, type Static } from 'typebox';
import { HOUSEHOLD_ROLES } from '../../db/schema/households.js';
import { Body, Id, Instant, Name, Nullable, PageQueryProps, StringEnum } from '../../lib/schemas.js';

/** Wire format of /api/crm/households (modules-contract §8). */

export const MAX_MEMBERS = 30;

export const Role = StringEnum(HOUSEHOLD_ROLES, { description: 'Head, Spouse, Child or Other' });

const NS = Nullable(Type.String());
const OptText = Type.Optional(Type.Unsafe<string | null>({ type: 'string', nullable: true, maxLength: 200 }));

export const AddressInput = Body(
  { street: OptText, city: OptText, country: OptText },
  { description: 'The household\'s mailing address (statements go to it); null or all parts empty: none' },
);
export type AddressInput = Static<typeof AddressInput>;

const AddressOut = Type.Object({ street: NS, city: NS, country: NS });
const ContactRef = Type.Object({ id: Type.Integer(), firstName: Type.String(), lastName: Type.String() });

export const MemberSchema = Type.Object({
  contact: Type.Object({ id: Type.Integer(), firstName: Type.String(), lastName: Type.String(), dateOfBirth: NS }),
  role: Role,
});

export const HouseholdSchema = Type.Object({
  id: Type.Integer(),
  name: Type.String(),
  address: Nullable(AddressOut),
  givingTogether: Type.Boolean(),
  primaryContact: Nullable(ContactRef),
  members: Type.Array(MemberSchema, { description: 'In the order they joined' }),
  createdAt: Instant,
  updatedAt: Instant,
});
export type HouseholdItem = Static<typeof HouseholdSchema>;

export const MemberInput = Body({ contactId: Id, role: Role });
export type MemberInput = Static<typeof MemberInput>;

export const CreateHouseholdBody = Body({
  name: Type.Optional(Name),
  address: Type.Optional(Nullable(AddressInput)),
  givingTogether: Type.Optional(Type.Boolean({ default: false, description: 'One giving statement for the household instead of one per person' })),
  members: Type.Array(MemberInput, { minItems: 1, maxItems: MAX_MEMBERS }),
});
export type CreateHouseholdBody = Static<typeof CreateHouseholdBody>;

export const UpdateHouseholdBody = Body({
  name: Type.Optional(Name),
  address: Type.Optional(Nullable(AddressInput)),
  givingTogether: Type.Optional(Type.Boolean()),
  primaryContactId: Type.Optional(Id),
});
export type UpdateHouseholdBody = Static<typeof UpdateHouseholdBody>;

export const UpdateMemberBody = Body({ role: Role });
export type UpdateMemberBody = Static<typeof UpdateMemberBody>;

export const ListHouseholdsQuery = Type.Object({
  ...PageQueryProps,
  q: Type.Optional(Type.String({ maxLength: 100, description: 'Case- and accent-insensitive substring of the household\'s name or a member\'s name' })),
});
export type ListHouseholdsQuery = Static<typeof ListHouseholdsQuery>;

export const MemberParams = Type.Object({ id: Id, contactId: Id });
export type MemberParams = Static<typeof MemberParams>;
