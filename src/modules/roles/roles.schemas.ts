import { Type, type Static } from 'typebox';
import { ALL_PERMISSIONS } from '../../lib/permissions.js';
import { Body, Id, LongText, Name, Nullable, PageQueryProps, ShortText, StringEnum } from '../../lib/schemas.js';

/** Only catalog keys are accepted: anything else is 400 naming the item. */
const PermissionKey = StringEnum(ALL_PERMISSIONS);
const Description = Nullable(LongText);
const Permissions = Type.Array(PermissionKey, { maxItems: 200, description: 'Keys from GET /api/roles/permissions' });

export const RoleSchema = Type.Object({
  id: Id,
  name: Type.String(),
  description: Nullable(Type.String()),
  permissions: Type.Array(Type.String()),
  isSystem: Type.Boolean({ description: 'Seeded roles: cannot be deleted, renamed or have their permissions changed' }),
  userCount: Type.Integer({ description: 'Users holding the role' }),
});

export const PermissionSchema = Type.Object({
  key: Type.String(),
  resource: Type.String(),
  action: Type.String(),
  description: Type.String(),
});

export const ListRolesQuery = Type.Object({ ...PageQueryProps, q: Type.Optional(ShortText) });
export type ListRolesQuery = Static<typeof ListRolesQuery>;

export const ListPermissionsQuery = Type.Object({ ...PageQueryProps });
export type ListPermissionsQuery = Static<typeof ListPermissionsQuery>;

export const CreateRoleBody = Body({
  name: Name,
  description: Type.Optional(Description),
  permissions: Type.Optional(Permissions),
});
export type CreateRoleBody = Static<typeof CreateRoleBody>;

export const UpdateRoleBody = Body({
  name: Type.Optional(Name),
  description: Type.Optional(Description),
  permissions: Type.Optional(Permissions),
});
export type UpdateRoleBody = Static<typeof UpdateRoleBody>;
