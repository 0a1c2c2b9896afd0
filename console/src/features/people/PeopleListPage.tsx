import { Anchor, Button, Group, Pagination, Table, Text, TextInput } from '@mantine/core';
import { useDebouncedValue } from '@mantine/hooks';
import { Link, useSearchParams } from 'react-router';
import { Can, ErrorAlert, Loading, Page, useFormat } from '../../shared';
import { usePeople } from './api';
import { personName, primary } from './names';

/** People: search as you type (name, email, phone digits) and the list with its total. */
export function PeopleListPage() {
  const f = useFormat();
  const [params, setParams] = useSearchParams();
  const q = params.get('q') ?? '';
  const page = Number(params.get('page') ?? 1);
  const [debounced] = useDebouncedValue(q, 250);
  const people = usePeople(debounced.trim(), page);
  const set = (next: Record<string, string>) => setParams({ ...Object.fromEntries(params), ...next }, { replace: true });

  return (
    <Page title="People" actions={(
      <Group gap="xs">
        <Button variant="default" component={Link} to="/people/duplicates">Possible duplicates</Button>
        <Can permission="contacts:write"><Button component={Link} to="/people/new">Add a person</Button></Can>
      </Group>
    )}>
      <TextInput type="search" label="Search people" placeholder="Name, email or phone digits" value={q} autoFocus
        onChange={(e) => set({ q: e.currentTarget.value, page: '1' })} />
      <ErrorAlert error={people.error} />
      {people.isPending ? <Loading /> : people.data && (
        <>
          <Text size="sm" aria-live="polite">{people.data.total === 0 ? (q ? `Nobody matches “${q}”.` : 'No people yet: add the first person.') : `${f.number(people.data.total)} ${people.data.total === 1 ? 'person' : 'people'}`}</Text>
          {people.data.data.length > 0 && (
            <Table.ScrollContainer minWidth={320}>
              <Table striped highlightOnHover stickyHeader>
                <Table.Thead>
                  <Table.Tr>
                    <Table.Th>Name</Table.Th>
                    <Table.Th visibleFrom="sm">Email</Table.Th>
                    <Table.Th>Phone</Table.Th>
                    <Table.Th visibleFrom="sm">Status</Table.Th>
                  </Table.Tr>
                </Table.Thead>
                <Table.Tbody>
                  {people.data.data.map((p) => (
                    <Table.Tr key={p.id}>
                      <Table.Td><Anchor component={Link} to={`/people/${p.id}`}>{personName(p)}</Anchor></Table.Td>
                      <Table.Td visibleFrom="sm">{primary(p.emails)}</Table.Td>
                      <Table.Td>{primary(p.phones)}</Table.Td>
                      <Table.Td visibleFrom="sm">{p.status}</Table.Td>
                    </Table.Tr>
                  ))}
                </Table.Tbody>
              </Table>
            </Table.ScrollContainer>
          )}
          {people.data.total > people.data.limit && (
            <Group justify="center">
              <Pagination total={Math.ceil(people.data.total / people.data.limit)} value={page} onChange={(n) => set({ page: String(n) })}
                getControlProps={(control) => ({ 'aria-label': `${control} page` })} getItemProps={(n) => ({ 'aria-label': `Page ${n}` })} />
            </Group>
          )}
        </>
      )}
    </Page>
  );
}
