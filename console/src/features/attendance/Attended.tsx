import { Anchor, Badge, Group, Pagination, Table, Text } from '@mantine/core';
import { useState } from 'react';
import { Link } from 'react-router';
import { useSignedIn } from '../../shared';
import type { AttendanceRecord } from './api';

const PER_PAGE = 50;

/** Who attended (as written: members, guests, volunteers, check-ins), by name, 50 a page. */
export function Attended({ records }: { records: AttendanceRecord[] }) {
  const { can } = useSignedIn();
  const [page, setPage] = useState(1);
  if (records.length === 0) return <Text c="dimmed">Nobody is marked present yet. Tap the members who came, and add visitors with the guest form.</Text>;
  const label = (r: AttendanceRecord) => (r.contact ? `${r.contact.lastName} ${r.contact.firstName}` : '~');
  const sorted = [...records].sort((a, b) => label(a).localeCompare(label(b)));
  const pages = Math.ceil(sorted.length / PER_PAGE);
  const shown = sorted.slice((Math.min(page, pages) - 1) * PER_PAGE, Math.min(page, pages) * PER_PAGE);
  return (
    <>
      <Table.ScrollContainer minWidth={280}>
        <Table striped stickyHeader>
          <Table.Thead><Table.Tr><Table.Th>Name</Table.Th><Table.Th>As</Table.Th></Table.Tr></Table.Thead>
          <Table.Tbody>
            {shown.map((r) => (
              <Table.Tr key={r.id}>
                <Table.Td>
                  {!r.contact ? <Text c="dimmed" size="sm">Erased person</Text>
                    : can('contacts:read') ? <Anchor component={Link} to={`/people/${r.contact.id}`}>{r.contact.firstName} {r.contact.lastName}</Anchor>
                    : `${r.contact.firstName} ${r.contact.lastName}`}
                </Table.Td>
                <Table.Td>
                  <Group gap={4}>
                    <Text size="sm">{r.checkedInAt ? 'Checked in' : r.kind}</Text>
                    {r.isFirstTime && <Badge size="sm" color="teal.9">First time</Badge>}
                  </Group>
                </Table.Td>
              </Table.Tr>
            ))}
          </Table.Tbody>
        </Table>
      </Table.ScrollContainer>
      {pages > 1 && (
        <Group justify="center" mt="sm">
          <Pagination total={pages} value={page} onChange={setPage}
            getControlProps={(control) => ({ 'aria-label': `${control} page` })} getItemProps={(n) => ({ 'aria-label': `Attended page ${n}` })} />
        </Group>
      )}
    </>
  );
}
