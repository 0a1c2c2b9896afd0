import { Text } from '@mantine/core';
import { Route, Routes } from 'react-router';
import { Page } from '../../shared';

/** The Follow-up area (console.md "Screens"). Placeholder until its screens land. */
export function FollowupRoutes() {
  return (
    <Routes>
      <Route index element={<Page title="Follow-up"><Text>This area is being built.</Text></Page>} />
    </Routes>
  );
}
