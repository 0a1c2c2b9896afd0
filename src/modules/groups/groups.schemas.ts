import { Type, type Static } from 'typebox';
import { GROUP_PRIVACIES, MEMBERSHIP_REQUEST_STATUSES, MEMBERSHIP_ROLES } from '../../db/schema/enums.js';
import { Body, Id, Instant, LongText, MetaData, Name, Nullable, PageQueryProps, ShortText, StringEnum } from '../../lib/schemas.js';

/** Wire format of /api/groups (api-contract §6). */

export const Ref = Type.Object({ id: Type.Integer(), name: Type.String() });
export const ContactRef = Type.Object({ id: Type.Integer(), firstName: Type.String(), lastName: Type.String() });

export const Privacy = StringEnum(GROUP_PRIVACIES);
export const Role = StringEnum(MEMBERSHIP_ROLES);
export const RequestStatus = StringEnum(MEMBERSHIP_REQUEST_STATUSES);

export const Address = Type.Object({ street: Nullable(Type.String()), city: Nullable(Type.String()), country: Nullable(Type.String()) });

export const GroupSchema = Type.Object({
  id: Type.Integer(),
  name: Type.String(),
  category: Ref,
  parent: Nullable(Ref),
  privacy: Privacy,
  details: Nullable(Type.String()),
  address: Address,
  metaData: MetaData,
});
export type GroupOut = Static<typeof GroupSchema>;

export const ChildSchema = Type.Object({ id: Type.Integer(), name: Type.String(), category: Ref, privacy: Privacy });
export const MemberSchema = Type.Object({
  id: Type.Integer(),
  contactId: Type.Integer(),
  role: Role,
  isActive: Type.Boolean(),
  contact: ContactRef,
});
export const GroupDetailSchema = Type.Object({
  ...GroupSchema.properties,
  children: Type.Array(ChildSchema),
  /** The first 100 by name (MEMBERS_IN_READ); all of them through GET /api/groups/membership?groupId=. */
  members: Type.Array(MemberSchema),
  /** Every membership of the group, active or not (the membership list's total for groupId). */
  memberCount: Type.Integer(),
});

const AddressBody = Body({
  street: Type.Optional(Nullable(ShortText)),
  city: Type.Optional(Nullable(ShortText)),
  country: Type.Optional(Nullable(ShortText)),
});

const groupFields = {
  categoryId: Id,
  parentId: Type.Optional(Nullable(Id)),
  privacy: Type.Optional(Privacy),
  details: Type.Optional(Nullable(LongText)),
  address: Type.Optional(Nullable(AddressBody)),
  metaData: Type.Optional(MetaData),
};
export const CreateGroupBody = Body({ name: Name, ...groupFields });
export type CreateGroupBody = Static<typeof CreateGroupBody>;
export const UpdateGroupBody = Body({ name: Type.Optional(Name), ...groupFields, categoryId: Type.Optional(Id) });
export type UpdateGroupBody = Static<typeof UpdateGroupBody>;

export const GROUP_SORTS = ['name', '-name', 'id', '-id'] as const;
export const ListGroupsQuery = Type.Object({
  ...PageQueryProps,
  categoryId: Type.Optional(Id),
  parentId: Type.Optional(Id),
  ancestorId: Type.Optional(Id),
  q: Type.Optional(ShortText),
  sort: Type.Optional(StringEnum(GROUP_SORTS)),
});
export type ListGroupsQuery = Static<typeof ListGroupsQuery>;

export const ComboItem = Type.Object({ id: Type.Integer(), name: Type.String(), categoryId: Type.Integer(), parentId: Nullable(Type.Integer()) });
export const ComboQuery = Type.Object({ ...PageQueryProps, categoryId: Type.Optional(Id) });
export type ComboQuery = Static<typeof ComboQuery>;

// Categories
export const CategorySchema = Type.Object({
  id: Type.Integer(),
  name: Type.String(),
  description: Nullable(Type.String()),
  purpose: Nullable(Type.String()),
  level: Nullable(Type.Integer()),
});
export const CreateCategoryBody = Body({
  name: Name,
  description: Type.Optional(Nullable(LongText)),
  purpose: Type.Optional(Nullable(LongText)),
  level: Type.Optional(Nullable(Type.Integer({ minimum: 1, maximum: 100 }))),
});
export type CreateCategoryBody = Static<typeof CreateCategoryBody>;
export const CategoriesQuery = Type.Object(PageQueryProps);

// Memberships
export const MembershipSchema = Type.Object({
  id: Type.Integer(),
  groupId: Type.Integer(),
  contactId: Type.Integer(),
  role: Role,
  isActive: Type.Boolean(),
  group: Ref,
  contact: ContactRef,
});
export type MembershipOut = Static<typeof MembershipSchema>;
export const CreateMembershipBody = Body({ contactId: Id, groupId: Id, role: Type.Optional(Role), isActive: Type.Optional(Type.Boolean()) });
export type CreateMembershipBody = Static<typeof CreateMembershipBody>;
export const UpdateMembershipBody = Body({ role: Type.Optional(Role), isActive: Type.Optional(Type.Boolean()) });
export type UpdateMembershipBody = Static<typeof UpdateMembershipBody>;
export const ListMembershipsQuery = Type.Object({
  ...PageQueryProps,
  groupId: Type.Optional(Id),
  contactId: Type.Optional(Id),
  role: Type.Optional(Role),
  isActive: Type.Optional(Type.Boolean()),
});
export type ListMembershipsQuery = Static<typeof ListMembershipsQuery>;

// Membership requests
export const MembershipRequestSchema = Type.Object({
  id: Type.Integer(),
  contactId: Type.Integer(),
  groupId: Type.Integer(),
  contact: ContactRef,
  group: Ref,
  status: RequestStatus,
  createdAt: Instant,
  handledAt: Nullable(Instant),
  handledBy: Nullable(Type.Integer()),
  membership: Type.Optional(MembershipSchema),
});
export const CreateMembershipRequestBody = Body({
  groupId: Id,
  contactId: Type.Optional(Id),
});
export type CreateMembershipRequestBody = Static<typeof CreateMembershipRequestBody>;
export const ListMembershipRequestsQuery = Type.Object({ ...PageQueryProps, groupId: Type.Optional(Id), contactId: Type.Optional(Id) });
export type ListMembershipRequestsQuery = Static<typeof ListMembershipRequestsQuery>;

// Import
export const MAX_IMPORT_ROWS = 10_000;
// Rows are checked one by one in the service, so a bad row is a row error, not a 400 for the file.
export const ImportRow = Body({
  name: Type.Optional(Nullable(Type.String({ maxLength: 200 }))),
  category: Type.Optional(Nullable(Type.String({ maxLength: 200 }))),
  parentName: Type.Optional(Nullable(Type.String({ maxLength: 200 }))),
});
export const ImportJsonBody = Body({ groups: Type.Array(ImportRow, { maxItems: MAX_IMPORT_ROWS }) });
export const ImportSummary = Type.Object({
  total: Type.Integer(),
  created: Type.Integer(),
  skipped: Type.Integer(),
  failed: Type.Integer(),
  errors: Type.Array(Type.Object({ row: Type.Integer(), message: Type.String() })),
});
export type ImportSummary = Static<typeof ImportSummary>;
