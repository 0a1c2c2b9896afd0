import { Text } from '@mantine/core';
import { Route, Routes } from 'react-router';
import { Page } from '../../shared';

/** The Giving area (console.md "Screens"). Placeholder until its screens land. */
export function GivingRoutes() {
  return (
    <Routes>
      <Route index element={<Page title="Giving"><Text>This area is being built.</Text></Page>} />
    </Routes>
  );
}
