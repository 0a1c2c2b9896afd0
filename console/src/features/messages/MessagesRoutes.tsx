import { Text } from '@mantine/core';
import { Route, Routes } from 'react-router';
import { Page } from '../../shared';

/** The Messages area (console.md "Screens"). Placeholder until its screens land. */
export function MessagesRoutes() {
  return (
    <Routes>
      <Route index element={<Page title="Messages"><Text>This area is being built.</Text></Page>} />
    </Routes>
  );
}
