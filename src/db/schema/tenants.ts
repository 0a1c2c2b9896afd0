import { bigint, boolean, pgTable, text } from 'drizzle-orm/pg-core';
import { createdAt } from './columns.js';

export const tenants = pgTable('tenants', {
  id: bigint('id', { mode: 'number' }).primaryKey().generatedByDefaultAsIdentity(),
  slug: text('slug').notNull().unique(),
  name: text('name').notNull(),
  allowRegistration: boolean('allow_registration').notNull().default(true),
  createdAt: createdAt(),
});
