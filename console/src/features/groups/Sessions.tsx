import { Anchor, Badge, Group, Pagination, Table, Text } from '@mantine/core';
import { useState } from 'react';
import { Link } from 'react-router';
import { ErrorAlert, Loading, useFormat } from '../../shared';
import { useGroupSessions, type GroupDetail } from './api';

/** The group's attendance sessions, newest first, each opening its roster (attendance:read). */
export function Sessions({ group }: { group: GroupDetail }) {
  const f = useFormat();
  const [page, setPage] = useState(1);
  const sessions = useGroupSessions(group.id, page, true);
  if (sessions.isPending) return <Loading label="Loading the sessions" />;
  if (sessions.isError) return <ErrorAlert error={sessions.error} />;
  const { data, total, limit } = sessions.data;
  if (total === 0) return <Text c="dimmed">No meetings recorded yet. Take attendance in Attendance and the sessions appear here.</Text>;
  return (
    <>
      <Text size="sm">{f.number(total)} {total === 1 ? 'session' : 'sessions'}</Text>
      <Table.ScrollContainer minWidth={280}>
        <Table stickyHeader>
          <Table.Thead>
            <Table.Tr><Table.Th>Date</Table.Th><Table.Th ta="right">Present</Table.Th><Table.Th ta="right" visibleFrom="xs">Guests</Table.Th></Table.Tr>
          </Table.Thead>
          <Table.Tbody>
            {data.map((s) => (
              <Table.Tr key={s.id}>
                <Table.Td>
                  <Group gap="xs" wrap="nowrap">
                    <Anchor component={Link} to={`/attendance/sessions/${s.id}`}>{f.date(s.date)}</Anchor>
                    {s.didNotMeet && <Badge size="sm" variant="light" color="gray">Did not meet</Badge>}
                  </Group>
                </Table.Td>
                <Table.Td ta="right">{f.number(s.presentCount)}</Table.Td>
                <Table.Td ta="right" visibleFrom="xs">{f.number(s.guestCount)}</Table.Td>
              </Table.Tr>
            ))}
          </Table.Tbody>
        </Table>
      </Table.ScrollContainer>
      {total > limit && (
        <Group justify="center" mt="xs">
          <Pagination size="sm" total={Math.ceil(total / limit)} value={page} onChange={setPage}
            getControlProps={(control) => ({ 'aria-label': `${control} page of sessions` })} getItemProps={(n) => ({ 'aria-label': `Sessions page ${n}` })} />
        </Group>
      )}
    </>
  );
}
