import { Type, type Static } from 'typebox';
import { Body, Email, Id, Instant, Name, Nullable, PageQueryProps, Password, ShortText, StringEnum } from '../../lib/schemas.js';

export const USER_STATUSES = ['Active', 'Disabled'] as const;
const UserStatus = StringEnum(USER_STATUSES);

/** The same rule as self-registration: no spaces and no `@`, so a username is never taken for an email. */
export const Username = Type.String({ minLength: 3, maxLength: 100, pattern: '^[^\\s@]+$', description: '3–100 characters, no spaces and no @' });
const RoleIds = Type.Array(Id, { maxItems: 50, uniqueItems: true, description: 'Replaces the user\'s roles' });

const RoleRef = Type.Object({ id: Id, name: Type.String() });

export const UserSchema = Type.Object({
  id: Id,
  username: Type.String(),
  email: Nullable(Type.String()),
  contactId: Id,
  status: UserStatus,
  roles: Type.Array(RoleRef),
  lastLoginAt: Nullable(Instant),
  invitationPending: Type.Boolean({ description: 'Invited and no password chosen yet (POST /api/users/:id/invitation sends the link again)' }),
});
export type UserItem = Static<typeof UserSchema>;

export const UserDetailSchema = Type.Object({
  ...UserSchema.properties,
  permissions: Type.Array(Type.String(), { description: 'Effective permissions: the union of the roles\' permissions' }),
});

export const MeSchema = Type.Object({
  id: Id,
  username: Type.String(),
  email: Nullable(Type.String()),
  contactId: Id,
  status: UserStatus,
  roles: Type.Array(RoleRef),
  permissions: Type.Array(Type.String()),
});

export const ListUsersQuery = Type.Object({
  ...PageQueryProps,
  q: Type.Optional(ShortText),
  roleId: Type.Optional(Id),
  status: Type.Optional(UserStatus),
});
export type ListUsersQuery = Static<typeof ListUsersQuery>;

export const CreateUserBody = Body({
  username: Username,
  email: Type.Optional(Nullable(Email)),
  password: Type.Optional(Password),
  invite: Type.Optional(Type.Boolean({ description: 'Email a link to choose a password instead of setting one' })),
  contactId: Type.Optional(Id),
  firstName: Type.Optional(Name),
  lastName: Type.Optional(Name),
  roleIds: Type.Optional(RoleIds),
});
export type CreateUserBody = Static<typeof CreateUserBody>;

export const UpdateUserBody = Body({
  email: Type.Optional(Nullable(Email)),
  contactId: Type.Optional(Id),
  status: Type.Optional(UserStatus),
  roleIds: Type.Optional(RoleIds),
});
export type UpdateUserBody = Static<typeof UpdateUserBody>;

export const ChangePasswordBody = Body({
  currentPassword: Type.String({ minLength: 1, maxLength: 256 }),
  newPassword: Password,
});
export type ChangePasswordBody = Static<typeof ChangePasswordBody>;

export const InvitationSent = Type.Object({ message: Type.String() });
