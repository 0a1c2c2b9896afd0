import { Route, Routes } from 'react-router';
import { AbsenteesPage } from './AbsenteesPage';
import { SessionPage } from './SessionPage';
import { SessionsListPage } from './SessionsListPage';
import { SummaryPage } from './SummaryPage';
import { ThisSundayPage } from './ThisSundayPage';

/** The Attendance area (console.md "Attendance"). */
export function AttendanceRoutes() {
  return (
    <Routes>
      <Route index element={<ThisSundayPage />} />
      <Route path="sessions" element={<SessionsListPage />} />
      <Route path="sessions/:id" element={<SessionPage />} />
      <Route path="summary" element={<SummaryPage />} />
      <Route path="absentees" element={<AbsenteesPage />} />
    </Routes>
  );
}
