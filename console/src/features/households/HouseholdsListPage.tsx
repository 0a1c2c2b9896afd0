import { Anchor, Badge, Button, Group, Pagination, Table, Text, TextInput } from '@mantine/core';
import { useDebouncedValue } from '@mantine/hooks';
import { Link, useSearchParams } from 'react-router';
import { Can, ErrorAlert, Loading, Page, useFormat, useSignedIn } from '../../shared';
import { useHouseholds } from './api';

/** Households: search by the household's or a member's name, and the list with its total. */
export function HouseholdsListPage() {
  const f = useFormat();
  const { can } = useSignedIn();
  const [params, setParams] = useSearchParams();
  const q = params.get('q') ?? '';
  const page = Number(params.get('page') ?? 1);
  const [debounced] = useDebouncedValue(q, 250);
  const households = useHouseholds(debounced.trim(), page);
  const set = (next: Record<string, string>) => setParams({ ...Object.fromEntries(params), ...next }, { replace: true });
  const total = households.data?.total ?? 0;

  return (
    <Page title="Households" actions={<Can permission="contacts:write"><Button component={Link} to="/households/new">New household</Button></Can>}>
      <TextInput type="search" label="Search households" placeholder="Household or member name" value={q} autoFocus
        onChange={(e) => set({ q: e.currentTarget.value, page: '1' })} />
      <ErrorAlert error={households.error} />
      {households.isPending ? <Loading /> : households.data && (
        <>
          <Text size="sm" aria-live="polite">
            {total === 0
              ? (q
                ? `No household matches “${q}”. Try part of a family or member name${can('contacts:write') ? ', or start one with “New household”' : ''}.`
                : can('contacts:write') ? 'No households yet. Start one with “New household”, or from a person’s page.' : 'No households yet.')
              : `${f.number(total)} ${total === 1 ? 'household' : 'households'}`}
          </Text>
          {households.data.data.length > 0 && (
            <Table.ScrollContainer minWidth={300}>
              <Table striped highlightOnHover stickyHeader>
                <Table.Thead>
                  <Table.Tr>
                    <Table.Th>Household</Table.Th>
                    <Table.Th>Members</Table.Th>
                    <Table.Th visibleFrom="sm">Primary contact</Table.Th>
                    <Table.Th visibleFrom="sm">Giving</Table.Th>
                  </Table.Tr>
                </Table.Thead>
                <Table.Tbody>
                  {households.data.data.map((h) => (
                    <Table.Tr key={h.id}>
                      <Table.Td><Anchor component={Link} to={`/households/${h.id}`}>{h.name}</Anchor></Table.Td>
                      <Table.Td>
                        <Text size="sm" hiddenFrom="sm">{h.members.length}</Text>
                        <Text size="sm" visibleFrom="sm">{h.members.map((m) => m.contact.firstName).join(', ')}</Text>
                      </Table.Td>
                      <Table.Td visibleFrom="sm">{h.primaryContact ? `${h.primaryContact.firstName} ${h.primaryContact.lastName}` : '—'}</Table.Td>
                      <Table.Td visibleFrom="sm">{h.givingTogether ? <Badge variant="light">Together</Badge> : <Text size="sm" c="dimmed">Each person</Text>}</Table.Td>
                    </Table.Tr>
                  ))}
                </Table.Tbody>
              </Table>
            </Table.ScrollContainer>
          )}
          {total > households.data.limit && (
            <Group justify="center">
              <Pagination total={Math.ceil(total / households.data.limit)} value={page} onChange={(n) => set({ page: String(n) })}
                getControlProps={(control) => ({ 'aria-label': `${control} page` })} getItemProps={(n) => ({ 'aria-label': `Page ${n}` })} />
            </Group>
          )}
        </>
      )}
    </Page>
  );
}
