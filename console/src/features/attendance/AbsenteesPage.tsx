import { Anchor, Button, Group, Pagination, Select, Stack, Table, Text, VisuallyHidden } from '@mantine/core';
import { useState } from 'react';
import { Link } from 'react-router';
import { ErrorAlert, errorMessage, GroupPicker, Loading, Page, useFormat, useSignedIn, type PickedGroup } from '../../shared';
import { addDays, todayIn, useAbsentees, useCreateTask, type Absentee } from './api';
import { AreaNav } from './AreaNav';

const MISSED = ['2', '3', '4', '6', '8', '12'].map((n) => ({ value: n, label: `${n} meetings in a row` }));

/** Members of a subtree who missed their group's last meetings, with one tap to follow them up (a task). */
export function AbsenteesPage() {
  const f = useFormat();
  const { can } = useSignedIn();
  const [group, setGroup] = useState<PickedGroup | null>(null);
  const [missed, setMissed] = useState('3');
  const [page, setPage] = useState(1);
  const absentees = useAbsentees({ groupId: group?.id, missed: Number(missed), page });
  const total = absentees.data?.total ?? 0;

  return (
    <Page title="Absentees">
      <AreaNav />
      <Group align="flex-end" gap="sm" wrap="wrap">
        <GroupPicker label="Group (with everything under it)" clearable placeholder="All groups you can see" value={group}
          onChange={(g) => { setGroup(g); setPage(1); }} />
        <Select label="Missed" data={MISSED} value={missed} allowDeselect={false} w={220} onChange={(v) => { if (v) { setMissed(v); setPage(1); } }} />
      </Group>
      <ErrorAlert error={absentees.error} title="The absentees could not be loaded" />
      {absentees.isPending ? <Loading label="Loading absentees" /> : absentees.data && (
        <>
          <Text size="sm" aria-live="polite">
            {total === 0
              ? `Nobody missed the last ${missed} meetings of their group. A group with fewer meetings than that lists nobody yet.`
              : `${f.number(total)} ${total === 1 ? 'person' : 'people'} missed the last ${missed} meetings of their group`}
          </Text>
          {absentees.data.data.length > 0 && (
            <Table.ScrollContainer minWidth={300}>
              <Table striped stickyHeader>
                <Table.Thead>
                  <Table.Tr>
                    <Table.Th>Name</Table.Th>
                    <Table.Th visibleFrom="sm">Group</Table.Th>
                    <Table.Th visibleFrom="sm">Last attended</Table.Th>
                    {can('tasks:write') && <Table.Th><VisuallyHidden>Follow up</VisuallyHidden></Table.Th>}
                  </Table.Tr>
                </Table.Thead>
                <Table.Tbody>
                  {absentees.data.data.map((a) => <AbsenteeRow key={`${a.contact.id}-${a.group.id}`} absentee={a} followUp={can('tasks:write')} />)}
                </Table.Tbody>
              </Table>
            </Table.ScrollContainer>
          )}
          {total > absentees.data.limit && (
            <Group justify="center">
              <Pagination total={Math.ceil(total / absentees.data.limit)} value={page} onChange={setPage}
                getControlProps={(control) => ({ 'aria-label': `${control} page` })} getItemProps={(n) => ({ 'aria-label': `Page ${n}` })} />
            </Group>
          )}
        </>
      )}
    </Page>
  );
}

function AbsenteeRow({ absentee: a, followUp }: { absentee: Absentee; followUp: boolean }) {
  const f = useFormat();
  const { can, tenant } = useSignedIn();
  const task = useCreateTask();
  const name = `${a.contact.firstName} ${a.contact.lastName}`;
  const last = a.lastAttendedOn ? f.date(a.lastAttendedOn) : 'Never';
  const create = () => task.mutate({
    title: `Follow up ${name}`,
    description: `${name} missed the last ${a.missedSessions} meetings of ${a.group.name}; last attended: ${last}.`,
    contactId: a.contact.id, groupId: a.group.id, dueDate: addDays(todayIn(tenant.timeZone), 3),
  });
  return (
    <Table.Tr>
      <Table.Td>
        {can('contacts:read') ? <Anchor component={Link} to={`/people/${a.contact.id}`}>{name}</Anchor> : name}
        <Text size="xs" c="dimmed" hiddenFrom="sm">{a.group.name} · {a.lastAttendedOn ? `last attended ${last}` : 'never attended'}</Text>
      </Table.Td>
      <Table.Td visibleFrom="sm">{a.group.name}</Table.Td>
      <Table.Td visibleFrom="sm">{last}</Table.Td>
      {followUp && (
        <Table.Td>
          <Stack gap={2} align="flex-start">
            {task.isSuccess
              ? <Button size="sm" mih={44} variant="light" color="green" c="green.9" aria-disabled="true" aria-label={`Task created for ${name}`}>Task created</Button>
              : <Button size="sm" mih={44} variant="default" loading={task.isPending} onClick={create} aria-label={`Follow up ${name}`}>Follow up</Button>}
            {task.isError && <Text size="xs" c="red.8" role="alert">{errorMessage(task.error)}</Text>}
          </Stack>
        </Table.Td>
      )}
    </Table.Tr>
  );
}
