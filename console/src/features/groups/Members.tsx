import { ActionIcon, Anchor, Button, Group, Select, Table, Text, VisuallyHidden } from '@mantine/core';
import { useDebouncedValue } from '@mantine/hooks';
import { notifications } from '@mantine/notifications';
import { useState } from 'react';
import { Link } from 'react-router';
import { ErrorAlert, errorMessage, useSignedIn } from '../../shared';
import { useMembershipActions, usePersonChoices, type GroupDetail, type Role } from './api';

const ROLES: Role[] = ['Leader', 'Assistant', 'Member'];

/** A group's members: with groups:write, add people, change a role, remove (the API decides where the user may). */
export function Members({ group }: { group: GroupDetail }) {
  const { can } = useSignedIn();
  const actions = useMembershipActions(group.id);
  const manage = can('groups:write');
  const failed = (what: string) => (err: unknown) => notifications.show({ color: 'red', title: what, message: errorMessage(err) });

  return (
    <>
      {group.members.length === 0 ? <Text c="dimmed">No members yet.{manage ? ' Add the first below.' : ''}</Text> : (
        <Table.ScrollContainer minWidth={300}>
          <Table stickyHeader>
            <Table.Thead><Table.Tr><Table.Th>Name</Table.Th><Table.Th>Role</Table.Th>{manage && <Table.Th><VisuallyHidden>Actions</VisuallyHidden></Table.Th>}</Table.Tr></Table.Thead>
            <Table.Tbody>
              {group.members.map((m) => {
                const name = `${m.contact.firstName} ${m.contact.lastName}`;
                return (
                  <Table.Tr key={m.id}>
                    <Table.Td>{can('contacts:read') ? <Anchor component={Link} to={`/people/${m.contactId}`}>{name}</Anchor> : name}{m.isActive ? '' : ' (inactive)'}</Table.Td>
                    <Table.Td>
                      {manage ? (
                        <Select aria-label={`Role of ${name}`} data={ROLES} value={m.role} allowDeselect={false} w={130} size="xs"
                          onChange={(role) => role && actions.setRole.mutate({ id: m.id, role: role as Role }, { onError: failed(`${name}'s role was not changed`) })} />
                      ) : m.role}
                    </Table.Td>
                    {manage && (
                      <Table.Td>
                        <ActionIcon variant="subtle" color="red" aria-label={`Remove ${name}`} title={`Remove ${name} from ${group.name}`}
                          onClick={() => actions.remove.mutate(m.id, {
                            onSuccess: () => notifications.show({ color: 'green', message: `${name} removed from ${group.name}` }),
                            onError: failed(`${name} was not removed`),
                          })}>
                          <span aria-hidden>✕</span>
                        </ActionIcon>
                      </Table.Td>
                    )}
                  </Table.Tr>
                );
              })}
            </Table.Tbody>
          </Table>
        </Table.ScrollContainer>
      )}
      {manage && can('contacts:read') && <AddMember group={group} />}
    </>
  );
}

function AddMember({ group }: { group: GroupDetail }) {
  const [search, setSearch] = useState('');
  const [debounced] = useDebouncedValue(search, 250);
  const [chosen, setChosen] = useState<string | null>(null);
  const people = usePersonChoices(debounced, true);
  const { add } = useMembershipActions(group.id);
  const members = new Set(group.members.map((m) => m.contactId));
  const options = (people.data?.data ?? []).filter((p) => !members.has(p.id))
    .map((p) => ({ value: String(p.id), label: `${p.person?.firstName ?? ''} ${p.person?.lastName ?? ''}`.trim() }));
  const option = options.find((o) => o.value === chosen);

  return (
    <Group align="flex-end" gap="xs" mt="sm">
      <Select label="Add a person" placeholder="Name, email or phone" searchable data={options} value={chosen} onChange={setChosen}
        searchValue={search} onSearchChange={setSearch} nothingFoundMessage={debounced ? 'Nobody matches' : 'Type to search'} style={{ flex: 1, minWidth: 180 }} />
      <Button disabled={!option} loading={add.isPending}
        onClick={() => option && add.mutate(Number(option.value), {
          onSuccess: () => { notifications.show({ color: 'green', message: `${option.label} added to ${group.name}` }); setChosen(null); setSearch(''); },
        })}>
        Add
      </Button>
      {add.error && <ErrorAlert error={add.error} title="Not added" />}
    </Group>
  );
}
