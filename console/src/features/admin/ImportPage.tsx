import { Text } from '@mantine/core';
import { AdminPage } from './sections';

export function ImportPage() {
  return <AdminPage title="Import people"><Text>This screen is being built.</Text></AdminPage>;
}
