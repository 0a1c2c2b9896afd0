import { sql } from 'drizzle-orm';
import { contactsAttendedSinceSql, firstVisitSql } from '../attendance/attendance.service.js';
import { contactsGaveSinceSql } from '../finance/finance.queries.js';
import type { ContactSources } from './criteria-sql.js';

/**
 * Where the attendance and giving conditions read from: the fragments the attendance and finance
 * modules export for this purpose (contact-id subqueries over their own tables), so their rules
 * (which records count, refunds) live in one place.
 */
export const contactSources: ContactSources = {
  attendedSince: (tenantId, since) => contactsAttendedSinceSql(tenantId, since),
  firstVisitSince: (tenantId, since) => sql`(select fv.contact_id from ${firstVisitSql(tenantId)} fv where fv.first_visit_on >= ${since}::date)`,
  gaveSince: (tenantId, since) => contactsGaveSinceSql(tenantId, since),
};
