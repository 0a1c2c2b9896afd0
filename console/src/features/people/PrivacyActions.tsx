import { Button, Checkbox, List, Text } from '@mantine/core';
import { useDisclosure } from '@mantine/hooks';
import { notifications } from '@mantine/notifications';
import { useState } from 'react';
import { useNavigate } from 'react-router';
import { ConfirmDialog } from '../../shared/confirm';
import { useErasePerson, useExportPerson } from './api';

/** Export and erase (privacy:write), each behind a dialog that says what will happen. */
export function PrivacyActions({ id, name }: { id: number; name: string }) {
  const navigate = useNavigate();
  const [exporting, askExport] = useDisclosure(false);
  const [erasing, askErase] = useDisclosure(false);
  const [understood, setUnderstood] = useState(false);
  const exportPerson = useExportPerson(id);
  const erase = useErasePerson(id);

  return (
    <>
      <Button variant="default" onClick={askExport.open}>Export</Button>
      <Button variant="default" color="red" onClick={askErase.open}>Erase</Button>

      <ConfirmDialog opened={exporting} onClose={() => { askExport.close(); exportPerson.reset(); }} title={`Export everything about ${name}?`}
        confirmLabel="Download the file" color="indigo" loading={exportPerson.isPending} error={exportPerson.error}
        onConfirm={() => exportPerson.mutate(undefined, {
          onSuccess: () => { notifications.show({ color: 'green', message: `contact-${id}.json downloaded` }); askExport.close(); },
        })}>
        <Text>
          Your browser saves one file (contact-{id}.json) with everything the church holds about {name}: their details, groups, attendance,
          registrations, tasks, giving and pledges, and the history of changes about them. Nothing is changed.
        </Text>
        <Text>The file holds personal information: give it only to {name} or to whom they ask, and delete your copy afterwards.</Text>
      </ConfirmDialog>

      <ConfirmDialog opened={erasing} onClose={() => { askErase.close(); setUnderstood(false); erase.reset(); }} title={`Erase ${name}?`}
        confirmLabel={`Erase ${name}`} loading={erase.isPending} error={erase.error} disabled={!understood}
        onConfirm={() => erase.mutate(undefined, {
          onSuccess: () => { notifications.show({ color: 'green', message: `${name} erased` }); navigate('/people', { replace: true }); },
        })}>
        <Text fw={600}>This cannot be undone.</Text>
        <List spacing={4} size="sm">
          <List.Item>Their name becomes “Erased”; their emails, phone numbers, addresses, dates, relationships, requests and group memberships are deleted, and they leave their household.</List.Item>
          <List.Item>Their attendance, giving, pledges and event registrations stay only as counts and totals, no longer linked to who they were.</List.Item>
          <List.Item>Wherever their name, email or phone was written (tasks, notes, messages, the audit log) it becomes “[erased]”.</List.Item>
          <List.Item>A user account of theirs is disabled and signed out.</List.Item>
        </List>
        <Text size="sm">To give {name} a copy of their data first, use Export.</Text>
        <Checkbox label={`I understand that ${name} will be erased for good`} checked={understood} onChange={(e) => setUnderstood(e.currentTarget.checked)} />
      </ConfirmDialog>
    </>
  );
}
