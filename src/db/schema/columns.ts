import { bigint, timestamp } from 'drizzle-orm/pg-core';

/** Columns every tenant-owned table starts with. The primary key is (tenant_id, id). */
export const tenantColumns = {
  tenantId: bigint('tenant_id', { mode: 'number' }).notNull(),
  id: bigint('id', { mode: 'number' }).generatedByDefaultAsIdentity(),
};

export const createdAt = () => timestamp('created_at', { withTimezone: true, mode: 'date' }).notNull().defaultNow();
export const updatedAt = () => timestamp('updated_at', { withTimezone: true, mode: 'date' }).notNull().defaultNow();
export const refId = (name: string) => bigint(name, { mode: 'number' });
