/**
 * The attendance module's entry for other modules (search, reports, the dashboard, bench/): the
 * shared queries, callable with the caller's transaction. Route handlers use the per-resource
 * services (services/sessions/records/checkins).
 */
export {
  attendanceAbsentees, attendanceSummary, contactsAttendedSinceSql, firstVisitSql, firstVisitorsSql, summaryWindow,
  type Absentee, type AbsenteesQuery, type Summary, type SummaryPeriod, type SummaryQuery,
} from './attendance.queries.js';
