import { sql } from 'drizzle-orm';
import type { ContactSources } from './criteria-sql.js';

/** Local midnight of a tenant date, as an instant: `attended_at >= …` stays an index range. */
const startOf = (date: string, timeZone: string) => sql`(${date}::date::timestamp at time zone ${timeZone})`;

/**
 * Where the attendance and giving conditions read from: contact-id subqueries over the attendance
 * records and the contributions.
 */
export const contactSources: ContactSources = {
  attendedSince: (tenantId, since, timeZone) =>
    sql`(select ar.contact_id from attendance_records ar where ar.tenant_id = ${tenantId} and ar.attended_at >= ${startOf(since, timeZone)})`,
  // A first visit is a person's first attendance ever.
  firstVisitSince: (tenantId, since, timeZone) =>
    sql`(select ar.contact_id from attendance_records ar where ar.tenant_id = ${tenantId}
      group by ar.contact_id having min(ar.attended_at) >= ${startOf(since, timeZone)})`,
  gaveSince: (tenantId, since) =>
    sql`(select fc.contact_id from contributions fc where fc.tenant_id = ${tenantId} and fc.date >= ${since}::date and fc.contact_id is not null and fc.status <> 'Refunded')`,
};
