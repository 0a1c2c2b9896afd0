import { Text } from '@mantine/core';
import { Route, Routes } from 'react-router';
import { Page } from '../../shared';

/** The Reports area (console.md "Screens"). Placeholder until its screens land. */
export function ReportsRoutes() {
  return (
    <Routes>
      <Route index element={<Page title="Reports"><Text>This area is being built.</Text></Page>} />
    </Routes>
  );
}
