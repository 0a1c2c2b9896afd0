import { sql } from 'drizzle-orm';
import { boolean, foreignKey, index, jsonb, pgTable, primaryKey, text } from 'drizzle-orm/pg-core';
import { createdAt, refId, tenantColumns, updatedAt } from './columns.js';
import { tenants } from './tenants.js';
import { users } from './users.js';

/**
 * Saved contact lists (modules-contract §5): smart lists, so only the criteria are stored (the body
 * of POST /api/search/contacts) and the members are computed on every read. A list is its owner's,
 * and everyone's with contacts:read when shared; it goes with its owner's account.
 */
export const savedLists = pgTable(
  'saved_lists',
  {
    ...tenantColumns,
    name: text('name').notNull(),
    criteria: jsonb('criteria').$type<Record<string, unknown>>().notNull(),
    shared: boolean('shared').notNull().default(false),
    ownerUserId: refId('owner_user_id').notNull(),
    createdAt: createdAt(),
    updatedAt: updatedAt(),
  },
  (t) => [
    primaryKey({ columns: [t.tenantId, t.id] }),
    foreignKey({ columns: [t.tenantId], foreignColumns: [tenants.id] }).onDelete('cascade'),
    foreignKey({ name: 'saved_lists_owner_fk', columns: [t.tenantId, t.ownerUserId], foreignColumns: [users.tenantId, users.id] }).onDelete('cascade'),
    // GET /api/search/lists: the caller's own lists, and the shared ones, both in name order.
    index('saved_lists_owner_idx').on(t.tenantId, t.ownerUserId, t.name, t.id),
    index('saved_lists_shared_idx').on(t.tenantId, t.name, t.id).where(sql`${t.shared}`),
  ],
);
