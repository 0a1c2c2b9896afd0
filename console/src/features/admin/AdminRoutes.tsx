import { Text } from '@mantine/core';
import { Route, Routes } from 'react-router';
import { Page } from '../../shared';

/** The Admin area (console.md "Screens"). Placeholder until its screens land. */
export function AdminRoutes() {
  return (
    <Routes>
      <Route index element={<Page title="Admin"><Text>This area is being built.</Text></Page>} />
    </Routes>
  );
}
