import crypto from 'node:crypto';
import type { FastifyBaseLogger } from 'fastify';
import type { Config } from '../../config.js';
import { fieldChanges, recordChanges, type NewChange } from '../../changes/recorder.js';
import { withTenant, type Db } from '../../db/client.js';
import { BadRequestError, ConflictError, ForbiddenError, NotFoundError } from '../../lib/errors.js';
import type { Mailer } from '../../lib/mailer.js';
import { pageResult, toPage } from '../../lib/pagination.js';
import { hashPassword, verifyPassword } from '../../lib/passwords.js';
import { isPermission } from '../../lib/permissions.js';
import { newOpaqueToken } from '../../lib/tokens.js';
import type { Principal } from '../../plugins/auth.js';
import { insertResetToken, revokeUserTokens } from '../auth/auth.repository.js';
import { insertPersonContact } from '../contacts/contacts.repository.js';
import { isGroupManageable, loadGroupScope } from '../groups/groups.visibility.js';
import { ADMIN_PERMISSION, guardLastAdmin, permissionsNotHeld } from './users.guard.js';
import * as repo from './users.repository.js';
import type { ChangePasswordBody, CreateUserBody, ListUsersQuery, UpdateUserBody } from './users.schemas.js';

/** An invitation link lives longer than a forgotten-password link: people read mail late. */
const INVITE_TTL_MS = 7 * 24 * 3600 * 1000;

export interface UsersServiceDeps {
  db: Db;
  config: Config;
  mailer: Mailer;
  log: FastifyBaseLogger;
}

type UserRow = NonNullable<Awaited<ReturnType<typeof repo.findUser>>>;
type RoleRef = { id: number; name: string };

function toItem(row: Omit<UserRow, 'passwordHash'>, roles: RoleRef[]) {
  const { id, username, email, contactId, status, lastLoginAt, invitationPending } = row;
  return { id, username, email, contactId, status, roles, lastLoginAt: lastLoginAt?.toISOString() ?? null, invitationPending };
}

function sameIds(a: number[], b: number[]): boolean {
  const set = new Set(a);
  return set.size === new Set(b).size && b.every((id) => set.has(id));
}

export type UsersService = ReturnType<typeof createUsersService>;

export function createUsersService({ db, config, mailer, log }: UsersServiceDeps) {
  async function loadUser(tx: Db, tenantId: number, userId: number): Promise<UserRow> {
    const user = await repo.findUser(tx, tenantId, userId);
    if (!user) throw new NotFoundError('User', userId);
    return user;
  }

  /** Roles exist (404 naming the missing ones) and hold only permissions the caller holds (403). */
  async function checkGrantableRoles(tx: Db, auth: Principal, roleIds: number[]) {
    const found = await repo.findRolesByIds(tx, auth.tenantId, roleIds);
    const missing = roleIds.filter((id) => !found.some((r) => r.id === id));
    if (missing.length > 0) throw new NotFoundError(missing.length > 1 ? 'Roles' : 'Role', missing);
    for (const role of found) {
      const lacking = permissionsNotHeld(auth.permissions, role.permissions);
      if (lacking.length > 0) throw new ForbiddenError(`You cannot grant role ${role.name}: it has permissions you do not hold (${lacking.join(', ')})`);
    }
  }

  /** The contact exists in the tenant, is a Person, and no other user is linked to it. */
  async function checkLinkableContact(tx: Db, tenantId: number, contactId: number, userId?: number) {
    const link = await repo.findContactLink(tx, tenantId, contactId);
    if (!link) throw new NotFoundError('Contact', contactId);
    if (link.category !== 'Person') throw new BadRequestError(`body/contactId must name a Person contact (contact ${contactId} is a ${link.category})`);
    if (link.userId !== null && link.userId !== userId) throw new ConflictError(`Contact ${contactId} is already linked to user ${link.userId}`);
  }

  /**
   * An account's visibility scope comes from its contact's leadership, so linking a contact that leads
   * groups outside the caller's own led subtrees would hand out a wider scope than the caller has.
   */
  async function checkLinkableScope(tx: Db, auth: Principal, contactId: number) {
    if (auth.permissions.has('hierarchy:all')) return;
    const target = await loadGroupScope(tx, { ...auth, contactId, permissions: new Set() });
    if (target.ledPaths.length === 0) return;
    const mine = await loadGroupScope(tx, auth);
    if (target.ledPaths.some((path) => !isGroupManageable(mine, { path }))) {
      throw new ForbiddenError(`You cannot link contact ${contactId}: it leads groups outside the part of the hierarchy you lead`);
    }
  }

  /** Managing an account that can do more than the caller would be a way to borrow its rights. */
  async function checkManageable(tx: Db, auth: Principal, user: UserRow) {
    const lacking = permissionsNotHeld(auth.permissions, await repo.findUserPermissions(tx, auth.tenantId, user.id));
    if (lacking.length > 0) throw new ForbiddenError(`You cannot manage user ${user.username}: it has permissions you do not hold (${lacking.join(', ')})`);
  }

  async function listUsers(auth: Principal, query: ListUsersQuery) {
    const page = toPage(query);
    return withTenant(db, auth, async (tx) => {
      const { rows, total } = await repo.listUsers(tx, auth.tenantId, query, page.limit, page.offset);
      const roles = await repo.findRolesOfUsers(tx, auth.tenantId, rows.map((r) => r.id));
      return pageResult(page, rows.map((r) => toItem(r, roles.get(r.id) ?? [])), total);
    });
  }

  async function getUser(auth: Principal, userId: number) {
    return withTenant(db, auth, async (tx) => {
      const user = await loadUser(tx, auth.tenantId, userId);
      const roles = await repo.findRolesOfUsers(tx, auth.tenantId, [userId]);
      const permissions = (await repo.findUserPermissions(tx, auth.tenantId, userId)).filter(isPermission);
      return { ...toItem(user, roles.get(userId) ?? []), permissions };
    });
  }

  async function getMe(auth: Principal) {
    const { lastLoginAt: _, invitationPending: __, ...me } = await getUser(auth, auth.userId);
    return me;
  }

  function validateCreate(input: CreateUserBody) {
    if (input.invite && input.password !== undefined) throw new BadRequestError('body must have either password or invite: true, not both');
    if (!input.invite && input.password === undefined) throw new BadRequestError('body/password is required unless invite is true');
    if (input.invite && !input.email) throw new BadRequestError('body/email is required when invite is true');
    if (input.contactId === undefined && (!input.firstName || !input.lastName)) {
      throw new BadRequestError(`body/${input.firstName ? 'lastName' : 'firstName'} is required when contactId is not given`);
    }
  }

  async function createUser(auth: Principal, input: CreateUserBody) {
    validateCreate(input);
    const { tenantId } = auth;
    const roleIds = input.roleIds ?? [];
    const email = input.email ?? null;
    const passwordHash = input.password !== undefined ? await hashPassword(input.password) : null;
    const invite = input.invite ? newOpaqueToken() : undefined;
    const { user, slug } = await withTenant(db, tenantId, async (tx) => {
      await checkGrantableRoles(tx, auth, roleIds);
      if (input.contactId !== undefined) {
        await checkLinkableContact(tx, tenantId, input.contactId);
        await checkLinkableScope(tx, auth, input.contactId);
      }
      const taken = await repo.isUsernameOrEmailTaken(tx, tenantId, input.username, email);
      if (taken) throw new ConflictError(taken === 'username' ? `Username ${input.username} is already taken` : `Email ${email} is already taken`);
      const newContactId = input.contactId === undefined ? await insertPersonContact(tx, tenantId, { firstName: input.firstName!, lastName: input.lastName!, email }) : undefined;
      const contactId = input.contactId ?? newContactId!;
      const user = await repo.insertUser(tx, tenantId, { username: input.username, email, passwordHash, contactId, roleIds });
      await recordChanges(tx, auth, userCreatedChanges(user, roleIds, newContactId !== undefined, { invited: !!invite }));
      if (invite) await insertResetToken(tx, { tenantId, userId: user.id, tokenHash: invite.hash, expiresAt: new Date(Date.now() + INVITE_TTL_MS) });
      return { user, slug: invite ? await repo.findTenantSlug(tx, tenantId) : undefined };
    });
    if (invite && email) sendInvitation(email, user.username, slug ?? '', invite.token);
    return getUser(auth, user.id);
  }

  /**
   * The invitation again (an admin's "resend"): a new 7-day link to choose a password, for an account
   * that has an email and has not chosen one yet. Earlier links keep working until they expire.
   */
  async function resendInvitation(auth: Principal, userId: number) {
    const { tenantId } = auth;
    const { user, slug, token } = await withTenant(db, tenantId, async (tx) => {
      const user = await loadUser(tx, tenantId, userId);
      await checkManageable(tx, auth, user);
      if (user.passwordHash !== null) throw new ConflictError(`User ${user.username} has already chosen a password: they can use "Forgot password" instead`);
      if (!user.email) throw new ConflictError(`User ${user.username} has no email to send the invitation to: add one first`);
      const invite = newOpaqueToken();
      await insertResetToken(tx, { tenantId, userId, tokenHash: invite.hash, expiresAt: new Date(Date.now() + INVITE_TTL_MS) });
      // A new way into the account: audited, as the first invitation is (user.created's data.invited).
      await recordChanges(tx, auth, [{ type: 'user.updated', entityId: user.id, data: { userId: user.id, username: user.username, contactId: user.contactId, invitationSent: true } }]);
      return { user, slug: await repo.findTenantSlug(tx, tenantId), token: invite.token };
    });
    sendInvitation(user.email!, user.username, slug ?? '', token);
    return { message: `Invitation sent to ${user.email}` };
  }

  /** Not awaited: the account exists either way, and an admin can invite again through forgot-password. */
  function sendInvitation(to: string, username: string, slug: string, token: string) {
    // The console's page at this path (console/src/features/auth) reads the church from the query.
    const link = `${config.publicUrl}/reset-password/${token}?church=${encodeURIComponent(slug)}`;
    const text =
      `An account has been created for you in Parish (church "${slug}", username "${username}").\n` +
      `To choose your password, open ${link}\nThe link works once, for 7 days.`;
    mailer.send({ to, subject: 'Your Parish account', text }).catch((err: unknown) => log.warn({ err: String(err) }, 'invitation mail failed'));
  }

  async function updateUser(auth: Principal, userId: number, input: UpdateUserBody) {
    const { tenantId } = auth;
    await withTenant(db, tenantId, async (tx) => {
      const user = await loadUser(tx, tenantId, userId);
      const currentRoles = (await repo.findRolesOfUsers(tx, tenantId, [userId])).get(userId) ?? [];
      const rolesChange = input.roleIds !== undefined && !sameIds(input.roleIds, currentRoles.map((r) => r.id));
      const statusChange = input.status !== undefined && input.status !== user.status;
      const contactChange = input.contactId !== undefined && input.contactId !== user.contactId;
      if (rolesChange) await checkGrantableRoles(tx, auth, input.roleIds!);
      if (contactChange) await checkLinkableContact(tx, tenantId, input.contactId!, userId);
      if (userId === auth.userId && (rolesChange || statusChange)) throw new ForbiddenError('You cannot change your own roles or status');
      await checkManageable(tx, auth, user);
      if (contactChange) await checkLinkableScope(tx, auth, input.contactId!);
      if (input.email && input.email.toLowerCase() !== user.email?.toLowerCase() && (await repo.isEmailTaken(tx, tenantId, input.email, userId))) {
        throw new ConflictError(`Email ${input.email} is already taken`);
      }
      const changes: NewChange[] = [];
      const diff = fieldChanges(
        { email: user.email, contactId: user.contactId, status: user.status, roleIds: currentRoles.map((r) => r.id).sort((a, b) => a - b) },
        { email: input.email, contactId: input.contactId, status: input.status, roleIds: rolesChange ? [...new Set(input.roleIds)].sort((a, b) => a - b) : undefined },
      );
      const data = { userId, username: user.username, contactId: input.contactId ?? user.contactId };
      if (diff) changes.push({ type: 'user.updated', entityId: userId, changes: diff, data });
      if (statusChange && input.status === 'Disabled') changes.push({ type: 'user.disabled', entityId: userId, data });
      const apply = async () => {
        const { email, contactId, status } = input;
        if (email !== undefined || contactChange || statusChange) await repo.updateUser(tx, tenantId, userId, { email, contactId, status });
        if (rolesChange) await repo.replaceUserRoles(tx, tenantId, userId, input.roleIds!);
      };
      if (rolesChange || statusChange) await guardLastAdmin(tx, tenantId, lastAdminMessage(user.username), apply);
      else await apply();
      // A disabled account's sessions end now; its access tokens already fail (the user is reloaded per request).
      if (statusChange && input.status === 'Disabled') await revokeUserTokens(tx, tenantId, userId);
      await recordChanges(tx, auth, changes);
    });
    return getUser(auth, userId);
  }

  async function deleteUser(auth: Principal, userId: number) {
    const { tenantId } = auth;
    await withTenant(db, tenantId, async (tx) => {
      const user = await loadUser(tx, tenantId, userId);
      if (userId === auth.userId) throw new ForbiddenError('You cannot delete your own account');
      await checkManageable(tx, auth, user);
      await guardLastAdmin(tx, tenantId, lastAdminMessage(user.username), () => repo.deleteUser(tx, tenantId, userId));
      // §7 has no user.deleted: a deleted account is recorded as disabled, marked deleted.
      await recordChanges(tx, auth, [{ type: 'user.disabled', entityId: userId, data: { userId, username: user.username, contactId: user.contactId, deleted: true } }]);
    });
  }

  /** A wrong current password is 400, not 401: clients read 401 as an expired session. */
  async function changeOwnPassword(auth: Principal, input: ChangePasswordBody) {
    const { tenantId, userId } = auth;
    const user = await withTenant(db, tenantId, (tx) => loadUser(tx, tenantId, userId));
    if (!(await verifyPassword(user.passwordHash, input.currentPassword))) throw new BadRequestError('body/currentPassword is incorrect');
    const passwordHash = await hashPassword(input.newPassword);
    await withTenant(db, tenantId, async (tx) => {
      await repo.setPasswordHash(tx, tenantId, userId, passwordHash);
      await revokeUserTokens(tx, tenantId, userId, auth.sessionId);
      await recordChanges(tx, auth, [credentialChange(user)]);
    });
  }

  return { listUsers, getUser, getMe, createUser, resendInvitation, updateUser, deleteUser, changeOwnPassword };
}

/**
 * The operator's recovery of an account (`parish user reset-password`), for when no one can sign in
 * and the account has no email to reset through: a new random password, every session of the account
 * signed out, the change recorded with no user as its actor. Resolves to the password, shown once.
 */
export async function resetPasswordByOperator(db: Db, tenantId: number, username: string): Promise<{ username: string; password: string }> {
  const password = crypto.randomBytes(12).toString('base64url');
  const passwordHash = await hashPassword(password);
  return withTenant(db, tenantId, async (tx) => {
    const user = await repo.findUserByLogin(tx, tenantId, username);
    if (!user || user.username.toLowerCase() !== username.toLowerCase()) throw new NotFoundError(`User ${username}`);
    await repo.setPasswordHash(tx, tenantId, user.id, passwordHash);
    await revokeUserTokens(tx, tenantId, user.id);
    await recordChanges(tx, { tenantId, userId: null }, [credentialChange(user)]);
    return { username: user.username, password };
  });
}

/**
 * user.created (and contact.created when the account came with a new contact). The actor is the
 * caller, or the new user itself for self-registration.
 */
/**
 * The active ones of `userIds` as they would stand behind a request now (permissions of their
 * roles): who a webhook delivers for (its owner) and who a notification may reach. Disabled and
 * deleted users are absent.
 */
export async function activeUsers(tx: Db, tenantId: number, userIds: readonly number[]): Promise<Map<number, Pick<Principal, 'userId' | 'tenantId' | 'contactId' | 'permissions'>>> {
  const rows = await repo.findActivePrincipals(tx, tenantId, [...new Set(userIds)]);
  return new Map(rows.map((r) => [r.id, { userId: r.id, tenantId: r.tenantId, contactId: r.contactId, permissions: new Set(r.permissions.filter(isPermission)) }]));
}

export function userCreatedChanges(
  user: { id: number; username: string; email: string | null; contactId: number; status: string },
  roleIds: number[],
  newContact: boolean,
  extra: Record<string, unknown> = {},
): NewChange[] {
  const changes: NewChange[] = [];
  if (newContact) changes.push({ type: 'contact.created', entityId: user.contactId, data: { contactId: user.contactId, category: 'Person', status: 'Active', userId: user.id } });
  changes.push({
    type: 'user.created', entityId: user.id,
    data: { userId: user.id, username: user.username, email: user.email, contactId: user.contactId, status: user.status, roleIds, ...extra },
  });
  return changes;
}

/** A password set or changed: recorded without any trace of the secret (only that the credential changed). */
export function credentialChange(user: { id: number; username: string; contactId: number }): NewChange {
  return { type: 'user.updated', entityId: user.id, data: { userId: user.id, username: user.username, contactId: user.contactId, credentialChanged: true } };
}

function lastAdminMessage(username: string) {
  return `User ${username} is the last active user holding ${ADMIN_PERMISSION}; give it to another active user first`;
}
