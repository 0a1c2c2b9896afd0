import { bigint, boolean, pgTable, text } from 'drizzle-orm/pg-core';
import { createdAt } from './columns.js';

export const PAPER_SIZES = ['A4', 'Letter'] as const;
export type PaperSize = (typeof PAPER_SIZES)[number];

export const tenants = pgTable('tenants', {
  id: bigint('id', { mode: 'number' }).primaryKey().generatedByDefaultAsIdentity(),
  slug: text('slug').notNull().unique(),
  name: text('name').notNull(),
  allowRegistration: boolean('allow_registration').notNull().default(true),
  /** IANA zone: "today", weeks (from Sunday) and months are computed in it. */
  timeZone: text('time_zone').notNull().default('UTC'),
  /** ISO 4217; money is stored in its minor unit. */
  currency: text('currency').notNull().default('USD'),
  /** The church's postal address (free text, printed in a statement's header). */
  address: text('address'),
  /** The church's registration or tax number (printed in a statement's header). */
  taxNumber: text('tax_number'),
  /** A closing sentence printed at the end of statements. */
  statementClosing: text('statement_closing'),
  /** The paper statements are laid out on. */
  paperSize: text('paper_size').$type<PaperSize>().notNull().default('A4'),
  /** Where replies to the church's messages go (else the sending user's email). */
  replyTo: text('reply_to'),
  createdAt: createdAt(),
});
