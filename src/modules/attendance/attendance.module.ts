import type { ParishModule } from '../module.js';

/** Attendance: services, sessions, records, headcounts, summaries, absentees, check-in (§1) (modules-contract). Built by its issue; registered from src/modules/index.ts. */
export const attendanceModule: ParishModule = {
  name: 'attendance',
  prefix: '/api/attendance',
  routes: async () => {},
};
