import { Button, Checkbox, Group, Pagination, SimpleGrid, Stack, Text, TextInput } from '@mantine/core';
import { useState } from 'react';
import { ErrorAlert, Loading } from '../../shared';
import { useMembers } from './api';
import type { useMarks } from './useMarks';

/** Row height of the roster's toggles: a thumb's tap on a phone (console.md, WCAG 2.5.8 asks for 24; 44 is the bar here). */
const ROW = 52;

/**
 * The group's active members, one large toggle each (tap to mark present, tap again to unmark); a
 * name filter once the list is long; 100 a page.
 */
export function Roster({ groupId, groupName, marks }: { groupId: number; groupName: string; marks: ReturnType<typeof useMarks> }) {
  const [page, setPage] = useState(1);
  const [find, setFind] = useState('');
  const members = useMembers(groupId, page, true);
  if (members.isPending) return <Loading label="Loading the members" />;
  if (members.isError) return <ErrorAlert error={members.error} title="The members could not be loaded" />;
  const { data, total, limit } = members.data;
  const needle = find.trim().toLowerCase();
  const rows = data
    .filter((m) => !needle || `${m.contact.firstName} ${m.contact.lastName}`.toLowerCase().includes(needle))
    .sort((a, b) => a.contact.lastName.localeCompare(b.contact.lastName) || a.contact.firstName.localeCompare(b.contact.firstName));

  if (total === 0) {
    return <Text c="dimmed">{groupName} has no active members yet. Add people to the group in Groups, or add visitors with the guest form.</Text>;
  }
  return (
    <Stack gap="sm">
      {total > 12 && <TextInput type="search" label="Find a name" value={find} onChange={(e) => setFind(e.currentTarget.value)} maw={360} />}
      <SimpleGrid cols={{ base: 1, sm: 2, lg: 3 }} spacing="xs" verticalSpacing="xs">
        {rows.map((m) => {
          const name = `${m.contact.firstName} ${m.contact.lastName}`;
          const present = marks.isPresent(m.contact.id);
          return (
            <Checkbox.Card key={m.id} checked={present} onClick={() => marks.toggle(m.contact.id)} radius="md" px="md" mih={ROW} aria-label={name}
              bg={present ? 'var(--mantine-primary-color-light)' : undefined}>
              <Group wrap="nowrap" gap="md" mih={ROW}>
                <Checkbox.Indicator size="md" />
                <Text fw={600} style={{ flex: 1 }} truncate="end">{name}</Text>
                {m.role !== 'Member' && <Text size="sm" c="dimmed">{m.role}</Text>}
              </Group>
            </Checkbox.Card>
          );
        })}
      </SimpleGrid>
      {rows.length === 0 && <Text c="dimmed">Nobody on this page matches “{find}”.</Text>}
      {total > limit && (
        <Group justify="center">
          <Pagination total={Math.ceil(total / limit)} value={page} onChange={setPage}
            getControlProps={(control) => ({ 'aria-label': `${control} page` })} getItemProps={(n) => ({ 'aria-label': `Members page ${n}` })} />
        </Group>
      )}
      {marks.error !== undefined && (
        <Stack gap={4}>
          <ErrorAlert error={marks.error} title="Not saved yet" />
          <Group><Button onClick={marks.retry} mih={44}>Try again</Button></Group>
        </Stack>
      )}
    </Stack>
  );
}
