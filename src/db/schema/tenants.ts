import { bigint, boolean, pgTable, text } from 'drizzle-orm/pg-core';
import { createdAt } from './columns.js';

export const tenants = pgTable('tenants', {
  id: bigint('id', { mode: 'number' }).primaryKey().generatedByDefaultAsIdentity(),
  slug: text('slug').notNull().unique(),
  name: text('name').notNull(),
  allowRegistration: boolean('allow_registration').notNull().default(true),
  /** IANA zone: "today", weeks (from Sunday) and months are computed in it. */
  timeZone: text('time_zone').notNull().default('UTC'),
  /** ISO 4217; money is stored in its minor unit. */
  currency: text('currency').notNull().default('USD'),
  createdAt: createdAt(),
});
