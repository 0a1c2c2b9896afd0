import type { ParishModule } from '../module.js';
import { absenceSchedule } from './absence.schedule.js';
import { attendanceRoutes } from './attendance.routes.js';

/** Attendance: services, sessions, records, headcounts, summaries, absentees, check-in (modules-contract §1). */
export const attendanceModule: ParishModule = {
  name: 'attendance',
  prefix: '/api/attendance',
  routes: attendanceRoutes,
  schedules: [absenceSchedule],
};
