import { ActionIcon, Anchor, Select, Table, Text, VisuallyHidden } from '@mantine/core';
import { Link } from 'react-router';
import { ROLES, type Role } from './api';

export interface Row {
  id: number;
  name: string;
  role: Role;
  detail?: string;
}

/** Members with their roles: a role picker and a remove button each when the user may change them. */
export function MemberRows({ rows, editable, onRole, onRemove, linkPeople, caption }: {
  rows: Row[];
  editable: boolean;
  onRole(row: Row, role: Role): void;
  onRemove(row: Row): void;
  linkPeople: boolean;
  caption: string;
}) {
  return (
    <Table.ScrollContainer minWidth={280}>
      <Table stickyHeader verticalSpacing="xs">
        <caption><VisuallyHidden>{caption}</VisuallyHidden></caption>
        <Table.Thead>
          <Table.Tr>
            <Table.Th>Name</Table.Th>
            <Table.Th>Role</Table.Th>
            {editable && <Table.Th><VisuallyHidden>Actions</VisuallyHidden></Table.Th>}
          </Table.Tr>
        </Table.Thead>
        <Table.Tbody>
          {rows.map((row) => (
            <Table.Tr key={row.id}>
              <Table.Td>
                {linkPeople ? <Anchor component={Link} to={`/people/${row.id}`}>{row.name}</Anchor> : row.name}
                {row.detail && <Text size="xs" c="dimmed">{row.detail}</Text>}
              </Table.Td>
              <Table.Td>
                {editable ? (
                  <Select aria-label={`Role of ${row.name}`} data={[...ROLES]} value={row.role} allowDeselect={false} w={120} size="xs"
                    onChange={(role) => role && role !== row.role && onRole(row, role as Role)} />
                ) : row.role}
              </Table.Td>
              {editable && (
                <Table.Td w={44}>
                  <ActionIcon variant="subtle" color="red" aria-label={`Remove ${row.name}`} title={`Remove ${row.name}`} onClick={() => onRemove(row)}>
                    <span aria-hidden>✕</span>
                  </ActionIcon>
                </Table.Td>
              )}
            </Table.Tr>
          ))}
        </Table.Tbody>
      </Table>
    </Table.ScrollContainer>
  );
}
