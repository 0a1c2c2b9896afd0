import { Button, Checkbox, Group, Table, Text } from '@mantine/core';
import { notifications } from '@mantine/notifications';
import { useEffect, useState } from 'react';
import { ErrorAlert, Loading, Page } from '../../shared';
import { usePreferences, useSavePreferences, type Preferences } from './api';

/** What each notification type means to a person (the types of modules-contract §6). */
const TYPES: Record<string, string> = {
  'task.assigned': 'A task is assigned to me',
  'membership_request.created': 'Someone asks to join a group I lead',
  'membership_request.approved': 'My request to join a group is approved',
  'membership_request.rejected': 'My request to join a group is declined',
  'request.created': 'A prayer request in my fellowship',
  'report.missing': 'My group has not sent its weekly report',
  'message.failed': 'A message I sent could not be delivered',
};

/** The signed-in user's notification preferences: per type, by email and in the inbox. */
export function PreferencesPage() {
  const prefs = usePreferences();
  const save = useSavePreferences();
  const [draft, setDraft] = useState<Preferences>();
  useEffect(() => {
    if (prefs.data && !draft) setDraft(prefs.data);
  }, [prefs.data, draft]);

  if (prefs.isPending) return <Page title="Notification preferences"><Loading /></Page>;
  if (prefs.isError || !draft) return <Page title="Notification preferences"><ErrorAlert error={prefs.error} /></Page>;
  const types = Object.keys(draft.inApp);
  const set = (channel: 'email' | 'inApp', type: string, on: boolean) => setDraft((d) => d && { ...d, [channel]: { ...d[channel], [type]: on } });

  return (
    <Page title="Notification preferences">
      <Text c="dimmed">Choose how you hear about each kind of event. Messages the church sends to everyone are not affected here.</Text>
      <Table.ScrollContainer minWidth={320}>
        <Table aria-label="Notification preferences">
          <Table.Thead>
            <Table.Tr><Table.Th>When</Table.Th><Table.Th ta="center">By email</Table.Th><Table.Th ta="center">In my inbox</Table.Th></Table.Tr>
          </Table.Thead>
          <Table.Tbody>
            {types.map((type) => (
              <Table.Tr key={type}>
                <Table.Td>{TYPES[type] ?? type}</Table.Td>
                <Table.Td><Group justify="center"><Checkbox aria-label={`${TYPES[type] ?? type}: by email`} checked={draft.email[type as keyof Preferences['email']]} onChange={(e) => set('email', type, e.currentTarget.checked)} /></Group></Table.Td>
                <Table.Td><Group justify="center"><Checkbox aria-label={`${TYPES[type] ?? type}: in my inbox`} checked={draft.inApp[type as keyof Preferences['inApp']]} onChange={(e) => set('inApp', type, e.currentTarget.checked)} /></Group></Table.Td>
              </Table.Tr>
            ))}
          </Table.Tbody>
        </Table>
      </Table.ScrollContainer>
      <ErrorAlert error={save.error} title="The preferences were not saved" />
      <Group>
        <Button loading={save.isPending} onClick={() => save.mutate(draft, { onSuccess: () => notifications.show({ color: 'green', message: 'Your notification preferences are saved' }) })}>Save preferences</Button>
      </Group>
    </Page>
  );
}
