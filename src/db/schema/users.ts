import { sql } from 'drizzle-orm';
import { bigint, boolean, check, foreignKey, index, pgTable, primaryKey, text, timestamp, uniqueIndex } from 'drizzle-orm/pg-core';
import { createdAt, refId, tenantColumns, updatedAt } from './columns.js';
import { contacts } from './contacts.js';
import { tenants } from './tenants.js';

export const users = pgTable(
  'users',
  {
    ...tenantColumns,
    username: text('username').notNull(),
    email: text('email'),
    passwordHash: text('password_hash'),
    contactId: refId('contact_id').notNull(),
    status: text('status', { enum: ['Active', 'Disabled'] }).notNull().default('Active'),
    lastLoginAt: timestamp('last_login_at', { withTimezone: true, mode: 'date' }),
    createdAt: createdAt(),
    updatedAt: updatedAt(),
  },
  (t) => [
    primaryKey({ columns: [t.tenantId, t.id] }),
    foreignKey({ columns: [t.tenantId], foreignColumns: [tenants.id] }).onDelete('cascade'),
    foreignKey({ columns: [t.tenantId, t.contactId], foreignColumns: [contacts.tenantId, contacts.id] }),
    uniqueIndex('users_username_uq').on(t.tenantId, sql`lower(${t.username})`),
    uniqueIndex('users_email_uq').on(t.tenantId, sql`lower(${t.email})`),
    uniqueIndex('users_contact_uq').on(t.tenantId, t.contactId),
    check('users_status_ck', sql`${t.status} in ('Active', 'Disabled')`),
  ],
);

export const roles = pgTable(
  'roles',
  {
    ...tenantColumns,
    name: text('name').notNull(),
    description: text('description'),
    permissions: text('permissions').array().notNull().default(sql`'{}'::text[]`),
    isSystem: boolean('is_system').notNull().default(false),
    createdAt: createdAt(),
  },
  (t) => [
    primaryKey({ columns: [t.tenantId, t.id] }),
    foreignKey({ columns: [t.tenantId], foreignColumns: [tenants.id] }).onDelete('cascade'),
    uniqueIndex('roles_name_uq').on(t.tenantId, sql`lower(${t.name})`),
  ],
);

export const userRoles = pgTable(
  'user_roles',
  {
    tenantId: bigint('tenant_id', { mode: 'number' }).notNull(),
    userId: refId('user_id').notNull(),
    roleId: refId('role_id').notNull(),
  },
  (t) => [
    primaryKey({ columns: [t.tenantId, t.userId, t.roleId] }),
    foreignKey({ columns: [t.tenantId, t.userId], foreignColumns: [users.tenantId, users.id] }).onDelete('cascade'),
    foreignKey({ columns: [t.tenantId, t.roleId], foreignColumns: [roles.tenantId, roles.id] }).onDelete('cascade'),
    index('user_roles_role_idx').on(t.tenantId, t.roleId),
  ],
);

/** Opaque refresh tokens, stored as SHA-256 hashes; a family is one login's chain of rotations. */
export const refreshTokens = pgTable(
  'refresh_tokens',
  {
    ...tenantColumns,
    userId: refId('user_id').notNull(),
    tokenHash: text('token_hash').notNull(),
    familyId: text('family_id').notNull(),
    expiresAt: timestamp('expires_at', { withTimezone: true, mode: 'date' }).notNull(),
    usedAt: timestamp('used_at', { withTimezone: true, mode: 'date' }),
    revokedAt: timestamp('revoked_at', { withTimezone: true, mode: 'date' }),
    createdAt: createdAt(),
  },
  (t) => [
    primaryKey({ columns: [t.tenantId, t.id] }),
    foreignKey({ columns: [t.tenantId, t.userId], foreignColumns: [users.tenantId, users.id] }).onDelete('cascade'),
    uniqueIndex('refresh_tokens_hash_uq').on(t.tokenHash, t.tenantId),
    index('refresh_tokens_family_idx').on(t.tenantId, t.familyId),
    index('refresh_tokens_user_idx').on(t.tenantId, t.userId),
  ],
);

export const passwordResetTokens = pgTable(
  'password_reset_tokens',
  {
    ...tenantColumns,
    userId: refId('user_id').notNull(),
    tokenHash: text('token_hash').notNull(),
    expiresAt: timestamp('expires_at', { withTimezone: true, mode: 'date' }).notNull(),
    usedAt: timestamp('used_at', { withTimezone: true, mode: 'date' }),
    createdAt: createdAt(),
  },
  (t) => [
    primaryKey({ columns: [t.tenantId, t.id] }),
    foreignKey({ columns: [t.tenantId, t.userId], foreignColumns: [users.tenantId, users.id] }).onDelete('cascade'),
    uniqueIndex('password_reset_tokens_hash_uq').on(t.tokenHash, t.tenantId),
  ],
);


/**
 * Failed logins and password-reset requests per (tenant slug, login), keyed by a SHA-256 of the pair:
 * in the database so every server process counts the same failures. Not a tenant table (the slug
 * may name no tenant).
 */
export const authFailures = pgTable(
  'auth_failures',
  {
    key: text('key').notNull(),
    failedAt: timestamp('failed_at', { withTimezone: true, mode: 'date' }).notNull(),
  },
  (t) => [index('auth_failures_key_idx').on(t.key, t.failedAt)],
);
