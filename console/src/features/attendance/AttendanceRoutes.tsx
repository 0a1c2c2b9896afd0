import { Route, Routes } from 'react-router';
import { SessionPage } from './SessionPage';
import { SessionsListPage } from './SessionsListPage';
import { ThisSundayPage } from './ThisSundayPage';

/** The Attendance area (console.md "Attendance"). */
export function AttendanceRoutes() {
  return (
    <Routes>
      <Route index element={<ThisSundayPage />} />
      <Route path="sessions" element={<SessionsListPage />} />
      <Route path="sessions/:id" element={<SessionPage />} />
    </Routes>
  );
}
