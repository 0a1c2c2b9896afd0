import { Anchor, Button, Collapse, Group, Modal, Pagination, Select, SimpleGrid, Stack, Switch, Table, Text, TextInput } from '@mantine/core';
import { useDebouncedValue, useDisclosure } from '@mantine/hooks';
import { notifications } from '@mantine/notifications';
import { useState } from 'react';
import { Link, useSearchParams } from 'react-router';
import { Can, ErrorAlert, Loading, Page, useFormat, useGroupChoices, useSignedIn } from '../../shared';
import { ConfirmDialog } from '../../shared/confirm';
import {
  useDeleteList, useFilteredPeople, useListContacts, usePeople, useSavedLists, useSaveList,
  type Condition, type ContactItem, type ContactStatus, type Criteria, type SavedList,
} from './api';
import { personName, primary } from './names';

const STATUSES: { value: ContactStatus; label: string }[] = [
  { value: 'Active', label: 'Active' },
  { value: 'Inactive', label: 'Inactive' },
  { value: 'MovedAway', label: 'Moved away' },
  { value: 'TransferredToAnotherChurch', label: 'Transferred to another church' },
  { value: 'Deceased', label: 'Deceased' },
];
const BIRTHDAYS = [{ value: '7', label: 'In the next 7 days' }, { value: '31', label: 'In the next 31 days' }];
const FIRST_VISITS = [{ value: '30', label: 'In the last 30 days' }, { value: '90', label: 'In the last 90 days' }];

/** The filters kept in the address (so a filtered list can be bookmarked and comes back on Back). */
const FILTER_KEYS = ['status', 'group', 'city', 'birthday', 'firstVisit'] as const;
type Filters = Partial<Record<(typeof FILTER_KEYS)[number], string>>;

/**
 * The filters as the criteria of an advanced search (POST /api/search/contacts), which is also what
 * a saved list keeps. The text search, when filters are on, matches last names.
 */
function toCriteria(filters: Filters, q: string): Criteria {
  const conditions: Condition[] = [{ field: 'category', operator: 'eq', value: 'Person' }];
  if (filters.status) conditions.push({ field: 'status', operator: 'eq', value: filters.status });
  if (filters.group) conditions.push({ field: 'memberOf', operator: 'eq', value: Number(filters.group) });
  if (filters.city?.trim()) conditions.push({ field: 'city', operator: 'contains', value: filters.city.trim() });
  if (filters.birthday) conditions.push({ field: 'birthdayInDays', operator: 'lt', value: Number(filters.birthday) });
  if (filters.firstVisit) conditions.push({ field: 'firstVisitWithinDays', operator: 'lt', value: Number(filters.firstVisit) });
  if (q) conditions.push({ field: 'lastName', operator: 'contains', value: q });
  return { match: 'all', conditions };
}

/** People: search as you type (name, email, phone digits), filters, saved lists, and the list with its total. */
export function PeopleListPage() {
  const { can } = useSignedIn();
  const [params, setParams] = useSearchParams();
  const q = params.get('q') ?? '';
  const page = Number(params.get('page') ?? 1);
  const listId = params.get('list') ? Number(params.get('list')) : undefined;
  const filters: Filters = Object.fromEntries(FILTER_KEYS.flatMap((k) => (params.get(k) ? [[k, params.get(k)!]] : [])));
  const filterCount = Object.keys(filters).length;
  const [debounced] = useDebouncedValue(q.trim(), 250);
  const [debouncedCity] = useDebouncedValue(filters.city ?? '', 300);
  const [filtersOpen, { toggle: toggleFilters }] = useDisclosure(filterCount > 0);
  const [saving, { open: openSave, close: closeSave }] = useDisclosure(false);
  // Status alone is a filter of the plain list; any other filter searches with criteria.
  const advanced = Object.keys(filters).some((k) => k !== 'status');
  const criteria = advanced ? toCriteria({ ...filters, city: debouncedCity }, debounced) : undefined;
  const plain = usePeople(debounced, page, filters.status as ContactStatus | undefined, !advanced && listId === undefined);
  const filtered = useFilteredPeople(listId === undefined ? criteria : undefined, page);
  const lists = useSavedLists();
  const openList = lists.data?.data.find((l) => l.id === listId);
  const listPeople = useListContacts(listId, page);
  const shown = listId !== undefined ? listPeople : advanced ? filtered : plain;

  const set = (next: Record<string, string | null>) => {
    const merged = new URLSearchParams(params);
    for (const [k, v] of Object.entries(next)) if (v) merged.set(k, v); else merged.delete(k);
    if (!('page' in next)) merged.delete('page');
    setParams(merged, { replace: true });
  };
  const clearFilters = () => set(Object.fromEntries(FILTER_KEYS.map((k) => [k, null])));

  return (
    <Page title={openList ? openList.name : 'People'} actions={(
      <Group gap="xs">
        <Button variant="default" component={Link} to="/people/duplicates">Possible duplicates</Button>
        <Can permission="contacts:write"><Button component={Link} to="/people/new">Add a person</Button></Can>
      </Group>
    )}>
      {listId === undefined && (
        <TextInput type="search" label="Search people" placeholder="Name, email or phone digits" value={q} autoFocus
          description={advanced ? 'With these filters on, the search matches last names.' : undefined}
          onChange={(e) => set({ q: e.currentTarget.value })} />
      )}
      <Group align="flex-end" gap="xs" wrap="wrap">
        <SavedLists lists={lists.data?.data ?? []} value={listId} onOpen={() => void lists.refetch()} onChange={(id) => set({ list: id ? String(id) : null, q: null, ...Object.fromEntries(FILTER_KEYS.map((k) => [k, null])) })} />
        {listId === undefined && (
          <Button variant={filterCount ? 'light' : 'default'} onClick={toggleFilters} aria-expanded={filtersOpen} aria-controls="people-filters">
            {filterCount ? `Filters (${filterCount})` : 'Filters'}
          </Button>
        )}
      </Group>
      {listId !== undefined ? (
        <OpenList list={openList} loading={lists.isPending} onClose={() => set({ list: null })} />
      ) : (
        <>
          <Collapse expanded={filtersOpen} id="people-filters">
            <Stack gap="xs">
              <SimpleGrid cols={{ base: 1, xs: 2, md: 3 }} spacing="xs">
                <Select label="Status" placeholder="Any status" data={STATUSES} value={filters.status ?? null} clearable onChange={(v) => set({ status: v })} />
                {can('groups:read') && <GroupFilter value={filters.group} onChange={(v) => set({ group: v })} />}
                <TextInput label="City" placeholder="Any city" value={filters.city ?? ''} onChange={(e) => set({ city: e.currentTarget.value })} />
                <Select label="Birthday" placeholder="Any day" data={BIRTHDAYS} value={filters.birthday ?? null} clearable onChange={(v) => set({ birthday: v })} />
                {can('attendance:read') && (
                  <Select label="First visit" placeholder="Any time" data={FIRST_VISITS} value={filters.firstVisit ?? null} clearable onChange={(v) => set({ firstVisit: v })} />
                )}
              </SimpleGrid>
              {filterCount > 0 && (
                <Group gap="xs">
                  <Button variant="default" size="xs" onClick={clearFilters}>Clear the filters</Button>
                  {advanced && <Button size="xs" onClick={openSave}>Save as a list…</Button>}
                </Group>
              )}
            </Stack>
          </Collapse>
        </>
      )}
      <ErrorAlert error={shown.error} />
      {shown.isPending && shown.fetchStatus !== 'idle' ? <Loading /> : shown.data && (
        <Results people={shown.data.data} total={shown.data.total} limit={shown.data.limit} page={page}
          empty={listId !== undefined ? 'Nobody is on this list now.' : filterCount || q ? `Nobody matches${q ? ` “${q}”` : ''}${filterCount ? ' with these filters' : ''}.` : 'No people yet: add the first person.'}
          onPage={(n) => set({ page: String(n) })} />
      )}
      {saving && criteria && <SaveListDialog criteria={criteria} onClose={closeSave} onSaved={(l) => set({ list: String(l.id), q: null, ...Object.fromEntries(FILTER_KEYS.map((k) => [k, null])) })} />}
    </Page>
  );
}

/** The saved lists, their counts fetched again each time the choice opens (a list's people change as the people do). */
function SavedLists({ lists, value, onOpen, onChange }: { lists: SavedList[]; value: number | undefined; onOpen(): void; onChange(id: number | null): void }) {
  const f = useFormat();
  const data = lists.map((l) => ({ value: String(l.id), label: `${l.name}${l.count === null ? '' : ` (${f.number(l.count)})`}${l.shared ? ' · shared' : ''}` }));
  return (
    <Select label="Saved lists" placeholder={lists.length ? 'Open a saved list' : 'No saved lists yet'} data={data} value={value ? String(value) : null}
      onChange={(v) => onChange(v ? Number(v) : null)} onDropdownOpen={onOpen} clearable searchable={lists.length > 8} nothingFoundMessage="No list by that name"
      style={{ flex: 1, minWidth: 200, maxWidth: 360 }} />
  );
}

/** The saved list that is open: whose it is, and (for the owner) deleting it. */
function OpenList({ list, loading, onClose }: { list: SavedList | undefined; loading: boolean; onClose(): void }) {
  const { user } = useSignedIn();
  const [confirming, setConfirming] = useState(false);
  const remove = useDeleteList();
  if (!list) return loading ? null : <Text>This list no longer exists. <Anchor component="button" onClick={onClose}>Show everyone</Anchor></Text>;
  const mine = list.owner.username === user.username;
  return (
    <Group justify="space-between" gap="xs">
      <Text size="sm" c="dimmed">{list.shared ? 'Shared list' : 'Your list'}{mine ? '' : ` by ${list.owner.username}`} · updated as people change</Text>
      <Group gap="xs">
        <Button variant="default" size="xs" onClick={onClose}>Back to everyone</Button>
        {mine && <Button variant="default" color="red" size="xs" onClick={() => setConfirming(true)}>Delete the list…</Button>}
      </Group>
      {confirming && (
        <ConfirmDialog opened onClose={() => setConfirming(false)} title={`Delete the list “${list.name}”?`} confirmLabel="Delete the list"
          loading={remove.isPending} error={remove.error}
          onConfirm={() => remove.mutate(list.id, { onSuccess: () => { notifications.show({ color: 'green', message: `The list “${list.name}” was deleted` }); onClose(); } })}>
          <Text>The list goes{list.shared ? ' for everyone it is shared with' : ''}; the people on it stay as they are.</Text>
        </ConfirmDialog>
      )}
    </Group>
  );
}

function SaveListDialog({ criteria, onClose, onSaved }: { criteria: Criteria; onClose(): void; onSaved(list: SavedList): void }) {
  const [name, setName] = useState('');
  const [shared, setShared] = useState(false);
  const save = useSaveList();
  const submit = (e: React.FormEvent) => {
    e.preventDefault();
    save.mutate({ name: name.trim(), criteria, shared }, {
      onSuccess: (list) => { notifications.show({ color: 'green', message: `The list “${list.name}” was saved` }); onClose(); onSaved(list); },
    });
  };
  return (
    <Modal opened onClose={onClose} title="Save as a list" centered>
      <form onSubmit={submit}>
        <Stack>
          <Text size="sm">The list keeps these filters, not today&apos;s names: whoever matches them when it is opened is on it.</Text>
          <TextInput label="Name" required value={name} onChange={(e) => setName(e.currentTarget.value)} data-autofocus
            error={save.error ? (save.error as Error).message : undefined} />
          <Switch label="Share with everyone who can see people" checked={shared} onChange={(e) => setShared(e.currentTarget.checked)} />
          <Group justify="flex-end">
            <Button variant="default" onClick={onClose}>Cancel</Button>
            <Button type="submit" loading={save.isPending} disabled={!name.trim()}>Save the list</Button>
          </Group>
        </Stack>
      </form>
    </Modal>
  );
}

function GroupFilter({ value, onChange }: { value: string | undefined; onChange(v: string | null): void }) {
  const [search, setSearch] = useState('');
  const [debounced] = useDebouncedValue(search, 250);
  const choices = useGroupChoices(debounced);
  const [picked, setPicked] = useState<{ value: string; label: string } | null>(null);
  const options = (choices.data?.data ?? []).map((g) => ({ value: String(g.id), label: g.name }));
  if (picked && value === picked.value && !options.some((o) => o.value === picked.value)) options.unshift(picked);
  return (
    <Select label="Member of" placeholder="Any group" searchable clearable data={options} value={value ?? null}
      searchValue={search} onSearchChange={setSearch} nothingFoundMessage="No group matches"
      onChange={(v) => { setPicked(options.find((o) => o.value === v) ?? null); onChange(v); }} />
  );
}

function Results({ people, total, limit, page, empty, onPage }: { people: ContactItem[]; total: number; limit: number; page: number; empty: string; onPage(n: number): void }) {
  const f = useFormat();
  return (
    <>
      <Text size="sm" aria-live="polite">{total === 0 ? empty : `${f.number(total)} ${total === 1 ? 'person' : 'people'}`}</Text>
      {people.length > 0 && (
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
              {people.map((p) => (
                <Table.Tr key={p.id}>
                  <Table.Td><Anchor component={Link} to={`/people/${p.id}`}>{personName(p)}</Anchor></Table.Td>
                  <Table.Td visibleFrom="sm">{primary(p.emails)}</Table.Td>
                  <Table.Td>{primary(p.phones)}</Table.Td>
                  <Table.Td visibleFrom="sm">{STATUSES.find((s) => s.value === p.status)?.label ?? p.status}</Table.Td>
                </Table.Tr>
              ))}
            </Table.Tbody>
          </Table>
        </Table.ScrollContainer>
      )}
      {total > limit && (
        <Group justify="center">
          <Pagination total={Math.ceil(total / limit)} value={page} onChange={onPage}
            getControlProps={(control) => ({ 'aria-label': `${control} page` })} getItemProps={(n) => ({ 'aria-label': `Page ${n}` })} />
        </Group>
      )}
    </>
  );
}
