import crypto from 'node:crypto';
import type { AuthRateLimit } from '../../config.js';
import { recordChanges } from '../../changes/recorder.js';
import { beginTenantAhead, transaction, withTenant, type AheadOptions, type Db } from '../../db/client.js';
import { BadRequestError, ConflictError, ForbiddenError, NotFoundError, TooManyRequestsError, UnauthorizedError } from '../../lib/errors.js';
import type { Mailer } from '../../lib/mailer.js';
import { hashPassword, verifyPassword } from '../../lib/passwords.js';
import { isPermission } from '../../lib/permissions.js';
import { hashToken, newOpaqueToken } from '../../lib/tokens.js';
import type { Principal, SignAccessToken } from '../../plugins/auth.js';
import { ACCESS_TOKEN_TTL_SECONDS } from '../../plugins/auth.js';
import { insertPersonContact } from '../contacts/contacts.repository.js';
import { findTenantBySlug } from '../tenants/tenants.repository.js';
import * as usersRepo from '../users/users.repository.js';
import { credentialChange, userCreatedChanges } from '../users/users.service.js';
import * as repo from './auth.repository.js';
import { createFailureThrottle } from './auth.throttle.js';
import type { ForgotPasswordBody, LoginBody, RegisterBody } from './auth.schemas.js';

export const REFRESH_TTL_MS = 30 * 24 * 3600 * 1000;
const RESET_TTL_MS = 3600 * 1000;
const THROTTLE_WINDOW_MS = 15 * 60 * 1000;

export interface AuthServiceDeps {
  db: Db;
  mailer: Mailer;
  publicUrl: string;
  rateLimit: AuthRateLimit;
  signAccessToken: SignAccessToken;
}

export type AuthService = ReturnType<typeof createAuthService>;

export function createAuthService({ db, mailer, publicUrl, rateLimit, signAccessToken }: AuthServiceDeps) {
  const loginFailures = createFailureThrottle(db, 'login', rateLimit.accountFailures, THROTTLE_WINDOW_MS);
  const resetRequests = createFailureThrottle(db, 'reset', rateLimit.accountFailures, THROTTLE_WINDOW_MS);
  const principalQuery = usersRepo.preparePrincipalQuery(db);
  const principalStatement = usersRepo.principalStatement(db);

  function toPrincipal(row: usersRepo.PrincipalRow, sessionId: string): Principal {
    return { userId: row.id, tenantId: row.tenantId, contactId: row.contactId, username: row.username, sessionId, permissions: new Set(row.permissions.filter(isPermission)) };
  }

  /**
   * The active user behind a token, or undefined. With `beginTransaction` (on PostgreSQL) the check
   * also begins the request's tenant transaction, in the same round trip, for its first withTenant.
   */
  async function loadPrincipal(tenantId: number, userId: number, sessionId: string, options: { beginTransaction?: boolean } & AheadOptions = {}): Promise<Principal | undefined> {
    const { readOnly, readAhead } = options;
    const early = options.beginTransaction ? await beginTenantAhead(db, tenantId, principalStatement.statement, [tenantId, userId], { readOnly, readAhead }) : undefined;
    if (early) {
      const row = early.rows[0];
      if (!row) {
        early.release();
        return undefined;
      }
      const principal = toPrincipal(principalStatement.read(row), sessionId);
      early.handTo(principal);
      return principal;
    }
    const [row] = await principalQuery.execute({ tenantId, userId });
    return row && toPrincipal(row, sessionId);
  }

  /** Issues an access token and a refresh token of the given family (a new family at login). */
  async function issueTokens(tenantId: number, userId: number, familyId: string = crypto.randomUUID()) {
    const refresh = newOpaqueToken();
    await repo.insertRefreshToken(db, { tenantId, userId, tokenHash: refresh.hash, familyId, expiresAt: new Date(Date.now() + REFRESH_TTL_MS) });
    const user = await usersRepo.findUserProfile(db, tenantId, userId);
    return {
      accessToken: signAccessToken({ tenantId, userId, sessionId: familyId }),
      refreshToken: refresh.token,
      expiresIn: ACCESS_TOKEN_TTL_SECONDS,
      user: { ...user, permissions: user.permissions.filter(isPermission) },
    };
  }

  async function login(input: LoginBody) {
    const key = `${input.churchName.toLowerCase()}\u0000${input.username.toLowerCase()}`;
    const retryAfter = await loginFailures.retryAfter(key);
    if (retryAfter > 0) throw new TooManyRequestsError(retryAfter);
    const tenant = await findTenantBySlug(db, input.churchName);
    const user = tenant ? await usersRepo.findUserByLogin(db, tenant.id, input.username) : undefined;
    // Unknown tenant or user still costs one hash, so timing tells nothing.
    const matches = await verifyPassword(user?.passwordHash, input.password);
    if (!tenant || !user || !matches || user.status !== 'Active') {
      await loginFailures.fail(key);
      throw new UnauthorizedError('Invalid credentials');
    }
    await loginFailures.reset(key);
    await usersRepo.touchLastLogin(db, tenant.id, user.id);
    return issueTokens(tenant.id, user.id);
  }

  async function refresh(refreshToken: string) {
    const tokenHash = hashToken(refreshToken);
    const consumed = await repo.consumeRefreshToken(db, tokenHash);
    if (!consumed) {
      const known = await repo.findRefreshToken(db, tokenHash);
      // A rotated token presented again means it was stolen (or replayed): end the whole session.
      if (known?.usedAt) await repo.revokeFamily(db, known.tenantId, known.familyId);
      throw new UnauthorizedError('Invalid or expired refresh token');
    }
    if (!(await loadPrincipal(consumed.tenantId, consumed.userId, consumed.familyId))) {
      await repo.revokeFamily(db, consumed.tenantId, consumed.familyId);
      throw new UnauthorizedError('Invalid or expired refresh token');
    }
    return issueTokens(consumed.tenantId, consumed.userId, consumed.familyId);
  }

  async function logout(refreshToken: string) {
    const known = await repo.findRefreshToken(db, hashToken(refreshToken));
    if (known) await repo.revokeFamily(db, known.tenantId, known.familyId);
  }

  async function forgotPassword(input: ForgotPasswordBody) {
    const login = input.username ?? input.email ?? '';
    const key = `${input.churchName.toLowerCase()}\u0000${login.toLowerCase()}`;
    const retryAfter = await resetRequests.retryAfter(key);
    if (retryAfter > 0) throw new TooManyRequestsError(retryAfter);
    await resetRequests.fail(key);
    const tenant = await findTenantBySlug(db, input.churchName);
    const user = tenant ? await usersRepo.findUserByLogin(db, tenant.id, login) : undefined;
    if (tenant && user?.email && user.status === 'Active') {
      const reset = newOpaqueToken();
      await repo.insertResetToken(db, { tenantId: tenant.id, userId: user.id, tokenHash: reset.hash, expiresAt: new Date(Date.now() + RESET_TTL_MS) });
      const link = `${publicUrl}/reset-password/${reset.token}?church=${encodeURIComponent(tenant.slug)}`;
      // Not awaited: the answer must not wait on (or reveal) the mail server.
      void mailer
        .send({ to: user.email, subject: 'Reset your Parish password', text: `To choose a new password, open ${link}\nThe link works once, for one hour.` })
        .catch(() => {});
    }
    return { message: 'If the account exists, a password reset link has been sent to its email address' };
  }

  async function resetPassword(token: string, password: string) {
    const tokenHash = hashToken(token);
    // The route is public and not rate-limited: a made-up token must not cost an argon2 hash.
    if (!(await repo.isResetTokenLive(db, tokenHash))) throw new BadRequestError('Invalid or expired reset token');
    const passwordHash = await hashPassword(password);
    await transaction(db, async (tx) => {
      const consumed = await repo.consumeResetToken(tx, tokenHash);
      if (!consumed) throw new BadRequestError('Invalid or expired reset token');
      await usersRepo.setPasswordHash(tx, consumed.tenantId, consumed.userId, passwordHash);
      await repo.revokeUserTokens(tx, consumed.tenantId, consumed.userId);
      const user = await usersRepo.findUser(tx, consumed.tenantId, consumed.userId);
      // The actor is the account itself: whoever held the reset link.
      if (user) await recordChanges(tx, { tenantId: consumed.tenantId, userId: consumed.userId }, [credentialChange(user)]);
    });
    return { message: 'Your password has been changed; sign in with the new password' };
  }

  async function register(input: RegisterBody) {
    const tenant = await findTenantBySlug(db, input.churchName);
    if (!tenant) throw new NotFoundError(`Church ${input.churchName}`);
    if (!tenant.allowRegistration) throw new ForbiddenError('This church does not allow self-registration');
    const taken = await usersRepo.isUsernameOrEmailTaken(db, tenant.id, input.username, input.email);
    if (taken) throw new ConflictError(`That ${taken} is already taken`);
    const passwordHash = await hashPassword(input.password);
    const user = await withTenant(db, tenant.id, async (tx) => {
      const contactId = await insertPersonContact(tx, tenant.id, { firstName: input.firstName, lastName: input.lastName, email: input.email });
      const roleIds = await usersRepo.findRoleIdsByName(tx, tenant.id, ['Member']);
      const created = await usersRepo.insertUser(tx, tenant.id, { username: input.username, email: input.email, passwordHash, contactId, roleIds });
      // Self-registration: the new account is its own actor.
      await recordChanges(tx, { tenantId: tenant.id, userId: created.id }, userCreatedChanges(created, roleIds, true, { registered: true }));
      return created;
    });
    return { id: user.id, username: user.username, email: user.email, contactId: user.contactId, roles: ['Member'] };
  }

  return { loadPrincipal, login, refresh, logout, forgotPassword, resetPassword, register };
}
