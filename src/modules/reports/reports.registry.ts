import { absenteesReport, attendanceByGroupReport, attendanceTrendReport, firstTimeGuestsReport, retentionFunnelReport } from './reports.attendance.js';
import { givingByDonorReport, givingSummaryReport, lapsedGiversReport, pledgeProgressReport } from './reports.giving.js';
import { eventActivitiesReport, groupHealthReport } from './reports.groups.js';
import { growthReport, occasionsReport } from './reports.people.js';
import { taskThroughputReport } from './reports.tasks.js';
import type { ReportDefinition } from './report.types.js';

/** Every standard report of modules-contract §4, in catalog order. */
export const REPORTS: ReportDefinition[] = [
  attendanceTrendReport,
  attendanceByGroupReport,
  firstTimeGuestsReport,
  absenteesReport,
  retentionFunnelReport,
  growthReport,
  groupHealthReport,
  eventActivitiesReport,
  givingSummaryReport,
  givingByDonorReport,
  lapsedGiversReport,
  pledgeProgressReport,
  taskThroughputReport,
  occasionsReport,
];
