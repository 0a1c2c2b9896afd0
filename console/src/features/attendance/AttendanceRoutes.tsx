import { Text } from '@mantine/core';
import { Route, Routes } from 'react-router';
import { Page } from '../../shared';

/** The Attendance area (console.md "Screens"). Placeholder until its screens land. */
export function AttendanceRoutes() {
  return (
    <Routes>
      <Route index element={<Page title="Attendance"><Text>This area is being built.</Text></Page>} />
    </Routes>
  );
}
