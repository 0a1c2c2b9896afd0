import { fieldChanges, recordChanges } from '../../changes/recorder.js';
import { withTenant, type Db } from '../../db/client.js';
import { ConflictError, ForbiddenError, NotFoundError } from '../../lib/errors.js';
import { pageResult, toPage, type PageRequest } from '../../lib/pagination.js';
import { PERMISSION_CATALOG } from '../../lib/permissions.js';
import type { Principal } from '../../plugins/auth.js';
import { guardLastAdmin, permissionsNotHeld } from '../users/users.guard.js';
import * as repo from './roles.repository.js';
import type { CreateRoleBody, ListRolesQuery, UpdateRoleBody } from './roles.schemas.js';

/** Generated from the same catalog the routes name in `config.permission`. */
const CATALOG = PERMISSION_CATALOG.map(({ key, description }) => {
  const [resource, action] = key.split(':');
  return { key, resource, action, description };
});

function normalize(permissions: readonly string[]): string[] {
  return [...new Set(permissions)].sort();
}

function samePermissions(a: readonly string[], b: readonly string[]): boolean {
  return normalize(a).join() === normalize(b).join();
}

export type RolesService = ReturnType<typeof createRolesService>;

export function createRolesService({ db }: { db: Db }) {
  function listPermissions(query: PageRequest) {
    const page = toPage(query);
    return pageResult(page, CATALOG.slice(page.offset, page.offset + page.limit), CATALOG.length);
  }

  async function loadRole(tx: Db, tenantId: number, roleId: number) {
    const role = await repo.findRole(tx, tenantId, roleId);
    if (!role) throw new NotFoundError('Role', roleId);
    return role;
  }

  /** A caller may only hand out (or edit into a role) permissions it holds itself. */
  function checkHeld(auth: Principal, permissions: readonly string[], what: string) {
    const lacking = permissionsNotHeld(auth.permissions, permissions);
    if (lacking.length > 0) throw new ForbiddenError(`You cannot ${what}: it has permissions you do not hold (${lacking.join(', ')})`);
  }

  async function listRoles(auth: Principal, query: ListRolesQuery) {
    const page = toPage(query);
    return withTenant(db, auth, async (tx) => {
      const { rows, total } = await repo.listRoles(tx, auth.tenantId, query.q, page.limit, page.offset);
      return pageResult(page, rows, total);
    });
  }

  function getRole(auth: Principal, roleId: number) {
    return withTenant(db, auth, (tx) => loadRole(tx, auth.tenantId, roleId));
  }

  async function createRole(auth: Principal, input: CreateRoleBody) {
    const permissions = normalize(input.permissions ?? []);
    checkHeld(auth, permissions, `create role ${input.name}`);
    return withTenant(db, auth, async (tx) => {
      if (await repo.isRoleNameTaken(tx, auth.tenantId, input.name)) throw new ConflictError(`A role named ${input.name} already exists`);
      const id = await repo.insertRole(tx, auth.tenantId, { name: input.name, description: input.description ?? null, permissions });
      await recordChanges(tx, auth, [{ type: 'role.created', entityId: id, data: { roleId: id, name: input.name, permissions } }]);
      return loadRole(tx, auth.tenantId, id);
    });
  }

  async function updateRole(auth: Principal, roleId: number, input: UpdateRoleBody) {
    const { tenantId } = auth;
    return withTenant(db, tenantId, async (tx) => {
      const role = await loadRole(tx, tenantId, roleId);
      const permissions = input.permissions && normalize(input.permissions);
      const permissionsChange = permissions !== undefined && !samePermissions(permissions, role.permissions);
      const nameChange = input.name !== undefined && input.name !== role.name;
      // Registration, seeding and the Admin re-sync find system roles by name and permissions.
      if (role.isSystem && (permissionsChange || nameChange)) {
        throw new ConflictError(`Role ${role.name} is a system role: its name and permissions cannot be changed`);
      }
      checkHeld(auth, role.permissions, `edit role ${role.name}`);
      if (permissionsChange) checkHeld(auth, permissions, `give role ${role.name} these permissions`);
      if (nameChange && (await repo.isRoleNameTaken(tx, tenantId, input.name!, roleId))) throw new ConflictError(`A role named ${input.name} already exists`);
      const apply = () => repo.updateRole(tx, tenantId, roleId, { name: input.name, description: input.description, permissions });
      const message = `Role ${role.name} gives the last active user holding roles:write that permission; give it to another active user first`;
      if (permissionsChange) await guardLastAdmin(tx, tenantId, message, apply);
      else await apply();
      const diff = fieldChanges(role, { name: input.name, description: input.description, permissions });
      if (diff) await recordChanges(tx, auth, [{ type: 'role.updated', entityId: roleId, changes: diff, data: { roleId, name: input.name ?? role.name } }]);
      return loadRole(tx, tenantId, roleId);
    });
  }

  async function deleteRole(auth: Principal, roleId: number) {
    await withTenant(db, auth, async (tx) => {
      const role = await loadRole(tx, auth.tenantId, roleId);
      if (role.isSystem) throw new ConflictError(`Role ${role.name} is a system role and cannot be deleted`);
      if (role.userCount > 0) {
        throw new ConflictError(`Role ${role.name} is still assigned to ${role.userCount} user${role.userCount === 1 ? '' : 's'}; remove it from them first`);
      }
      await repo.deleteRole(tx, auth.tenantId, roleId);
      await recordChanges(tx, auth, [{ type: 'role.deleted', entityId: roleId, data: { roleId, name: role.name, permissions: role.permissions } }]);
    });
  }

  return { listPermissions, listRoles, getRole, createRole, updateRole, deleteRole };
}
