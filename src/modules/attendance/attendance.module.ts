import type { ParishModule } from '../module.js';
import { absenceSchedule } from './absence.schedule.js';
import { attendanceDocs } from './attendance.docs.js';
import { attendanceRoutes } from './attendance.routes.js';
import { seedAttendanceDemo } from './attendance.seed.js';

/** Attendance: services, sessions, records, headcounts, summaries, absentees, check-in (modules-contract §1). */
export const attendanceModule: ParishModule = {
  name: 'attendance',
  prefix: '/api/attendance',
  routes: attendanceRoutes,
  docs: attendanceDocs,
  schedules: [absenceSchedule],
  seedDemo: seedAttendanceDemo,
};
