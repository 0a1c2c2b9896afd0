import { Anchor, Button, Group, Select, Stack, Text } from '@mantine/core';
import { useDebouncedValue } from '@mantine/hooks';
import { notifications } from '@mantine/notifications';
import { useState } from 'react';
import { Link } from 'react-router';
import { Can, ErrorAlert } from '../../shared';
import { useHouseholdChoices, useJoinHousehold, type HouseholdRole, type Person } from './api';

const ROLES: HouseholdRole[] = ['Head', 'Spouse', 'Child', 'Other'];

/** The person's household (a link to it), or, with contacts:write, a way into one. */
export function HouseholdSection({ person, name }: { person: Person; name: string }) {
  const household = person.household;
  if (household) {
    return <Text><Anchor component={Link} to={`/households/${household.id}`}>{household.name}</Anchor> · {household.role}</Text>;
  }
  return (
    <Stack gap="xs">
      <Text c="dimmed">Not in a household.</Text>
      {person.category === 'Person' && (
        <Can permission="contacts:write">
          <JoinHousehold contactId={person.id} name={name} />
        </Can>
      )}
    </Stack>
  );
}

function JoinHousehold({ contactId, name }: { contactId: number; name: string }) {
  const [opened, setOpened] = useState(false);
  const [search, setSearch] = useState('');
  const [debounced] = useDebouncedValue(search, 250);
  const [householdId, setHouseholdId] = useState<string | null>(null);
  const [role, setRole] = useState<HouseholdRole>('Other');
  const choices = useHouseholdChoices(debounced.trim(), opened);
  const join = useJoinHousehold(contactId);
  const options = (choices.data?.data ?? []).map((h) => ({ value: String(h.id), label: h.name }));
  const chosen = options.find((o) => o.value === householdId);

  if (!opened) {
    return (
      <Group gap="xs">
        <Button variant="light" onClick={() => setOpened(true)}>Add to a household</Button>
        <Button variant="default" component={Link} to={`/households/new?contact=${contactId}`}>Start a new household</Button>
      </Group>
    );
  }
  return (
    <Stack gap="xs">
      <Group align="flex-end" gap="xs">
        <Select label="Household" placeholder="Type a family or member name" searchable data={options} value={householdId} onChange={setHouseholdId}
          searchValue={search} onSearchChange={setSearch} nothingFoundMessage="No household matches" style={{ flex: 1, minWidth: 180 }} />
        <Select label="As" data={ROLES} value={role} onChange={(r) => r && setRole(r as HouseholdRole)} allowDeselect={false} w={110} />
      </Group>
      <Group gap="xs">
        <Button disabled={!chosen} loading={join.isPending}
          onClick={() => chosen && join.mutate({ householdId: Number(chosen.value), role }, {
            onSuccess: () => notifications.show({ color: 'green', message: `${name} added to ${chosen.label}` }),
          })}>
          Add
        </Button>
        <Button variant="default" onClick={() => { setOpened(false); join.reset(); }}>Cancel</Button>
        <Anchor component={Link} to={`/households/new?contact=${contactId}`} size="sm">or start a new household</Anchor>
      </Group>
      <ErrorAlert error={join.error} title="Not added" />
    </Stack>
  );
}
