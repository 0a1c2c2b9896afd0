import { eventActivitiesReport, groupHealthReport } from './reports.groups.js';
import { growthReport, occasionsReport } from './reports.people.js';
import type { ReportDefinition } from './report.types.js';

/** Every standard report of modules-contract §4, in catalog order. */
export const REPORTS: ReportDefinition[] = [
  growthReport,
  groupHealthReport,
  eventActivitiesReport,
  occasionsReport,
];
