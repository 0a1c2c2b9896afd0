import { Anchor, Badge, Breadcrumbs, Button, Card, Checkbox, Group, Pagination, Radio, Select, SimpleGrid, Stack, Text } from '@mantine/core';
import { useDebouncedValue } from '@mantine/hooks';
import { notifications } from '@mantine/notifications';
import { useState } from 'react';
import { Link, useSearchParams } from 'react-router';
import { Can, ErrorAlert, Loading, Page, useFormat } from '../../shared';
import { ConfirmDialog } from '../../shared/confirm';
import { useDuplicates, useMerge, usePersonSearch, type ContactItem, type DuplicatePair } from './api';
import { personName, primary } from './names';

const REASONS: Record<string, string> = { email: 'Same email', phone: 'Same phone', name: 'Same name' };

/** The API merges at most this many records into one (sourceIds 1–10). */
const MAX_SOURCES = 10;

type Contact = DuplicatePair['contacts'][number] | ContactItem;

/** Pairs that share a record are one cluster: A–B and B–C are three records of perhaps one person. */
function clusters(pairs: DuplicatePair[]): { contacts: Contact[]; reasons: string[] }[] {
  const out: { contacts: Contact[]; reasons: string[] }[] = [];
  for (const pair of pairs) {
    const hit = out.filter((c) => c.contacts.some((x) => pair.contacts.some((y) => y.id === x.id)));
    const merged = { contacts: hit.flatMap((c) => c.contacts), reasons: hit.flatMap((c) => c.reasons) };
    for (const c of pair.contacts) if (!merged.contacts.some((x) => x.id === c.id)) merged.contacts.push(c);
    for (const r of pair.reasons) if (!merged.reasons.includes(r)) merged.reasons.push(r);
    merged.contacts.sort((a, b) => a.id - b.id);
    out.splice(0, out.length, ...out.filter((c) => !hit.includes(c)), merged);
  }
  return out.sort((a, b) => a.contacts[0].id - b.contacts[0].id);
}

/** Likely duplicates (shared email, phone digits or name), grouped; each group mergeable with privacy:write. */
export function DuplicatesPage() {
  const f = useFormat();
  const [params, setParams] = useSearchParams();
  const page = Number(params.get('page') ?? 1);
  const duplicates = useDuplicates(page);
  const [merging, setMerging] = useState<Contact[] | null>(null);
  const total = duplicates.data?.total ?? 0;
  const found = clusters(duplicates.data?.data ?? []);

  return (
    <Page title="Possible duplicates" actions={(
      <Can permission="privacy:write"><Button variant="default" onClick={() => setMerging([])}>Merge records…</Button></Can>
    )}>
      <Breadcrumbs>
        <Anchor component={Link} to="/people">People</Anchor>
        <Text>Possible duplicates</Text>
      </Breadcrumbs>
      <ErrorAlert error={duplicates.error} />
      {duplicates.isPending ? <Loading /> : duplicates.data && (
        <>
          <Text size="sm" aria-live="polite">
            {total === 0 ? 'No likely duplicates: no two people share an email, a phone number or a full name.' : `${f.number(total)} ${total === 1 ? 'pair' : 'pairs'} that may be the same person`}
          </Text>
          <Stack gap="sm">
            {found.map((cluster) => {
              const label = cluster.contacts.map(personName).join(', ').replace(/, ([^,]*)$/, ' and $1');
              return (
                <Card key={cluster.contacts.map((c) => c.id).join('-')} withBorder component="section" aria-label={label}>
                  <Group justify="space-between" mb="xs" gap="xs">
                    <Group gap="xs">
                      {cluster.reasons.map((r) => <Badge key={r} variant="light" color="indigo">{REASONS[r] ?? r}</Badge>)}
                      {cluster.contacts.length > 2 && <Badge variant="filled">{cluster.contacts.length} records</Badge>}
                    </Group>
                    <Can permission="privacy:write">
                      <Button size="xs" onClick={() => setMerging(cluster.contacts)} aria-label={`Merge ${label}`}>Merge…</Button>
                    </Can>
                  </Group>
                  <SimpleGrid cols={{ base: 1, sm: Math.min(cluster.contacts.length, 3) }} spacing="xs">
                    {cluster.contacts.map((c) => <ContactSummary key={c.id} contact={c} />)}
                  </SimpleGrid>
                </Card>
              );
            })}
          </Stack>
          {total > duplicates.data.limit && (
            <Group justify="center">
              <Pagination total={Math.ceil(total / duplicates.data.limit)} value={page} onChange={(n) => setParams({ page: String(n) }, { replace: true })}
                getControlProps={(control) => ({ 'aria-label': `${control} page` })} getItemProps={(n) => ({ 'aria-label': `Page ${n}` })} />
            </Group>
          )}
        </>
      )}
      {merging && <MergeDialog initial={merging} onClose={() => setMerging(null)} />}
    </Page>
  );
}

const describe = (c: Contact) => [primary(c.emails), primary(c.phones)].filter(Boolean).join(' · ') || 'no email or phone';

function ContactSummary({ contact }: { contact: Contact }) {
  return (
    <Stack gap={0}>
      <Text><Anchor component={Link} to={`/people/${contact.id}`} fw={600}>{personName(contact)}</Anchor> <Text span size="sm" c="dimmed">#{contact.id}</Text></Text>
      <Text size="sm" c="dimmed">
        {[primary(contact.emails), primary(contact.phones), contact.status].filter(Boolean).join(' · ')}{contact.householdId ? ' · in a household' : ''}
      </Text>
    </Stack>
  );
}

const joinNames = (cs: Contact[]) => cs.map((c) => `${personName(c)} (#${c.id})`).join(', ').replace(/, ([^,]*)$/, ' and $1');

/**
 * Merges several records into one: the user chooses the record to keep and which of the others
 * go into it (up to ten), and may add more records by searching; the confirmation names every one.
 */
function MergeDialog({ initial, onClose }: { initial: Contact[]; onClose(): void }) {
  const [records, setRecords] = useState<Contact[]>(initial);
  const [keep, setKeep] = useState<string | null>(initial[0] ? String(initial[0].id) : null);
  const [sources, setSources] = useState<string[]>(initial.slice(1).map((c) => String(c.id)));
  const merge = useMerge();
  const kept = records.find((c) => String(c.id) === keep);
  const gone = records.filter((c) => c !== kept && sources.includes(String(c.id)));
  const tooMany = gone.length > MAX_SOURCES;

  const chooseKeep = (value: string) => {
    setKeep(value);
    // The record kept is not merged into itself; the one kept before becomes a source.
    setSources([...new Set([...sources.filter((s) => s !== value), ...(keep && keep !== value ? [keep] : [])])]);
    merge.reset();
  };
  const add = (c: Contact) => {
    if (records.some((r) => r.id === c.id)) return;
    setRecords([...records, c]);
    if (keep === null) setKeep(String(c.id));
    else setSources([...sources, String(c.id)]);
    merge.reset();
  };

  return (
    <ConfirmDialog opened onClose={onClose} loading={merge.isPending} error={merge.error}
      title={records.length === 2 ? `Merge ${personName(records[0])} and ${personName(records[1])}?` : 'Merge records?'}
      disabled={!kept || gone.length === 0 || tooMany}
      confirmLabel={!kept || gone.length === 0 ? 'Merge' : gone.length === 1 ? `Keep ${personName(kept)} and merge` : `Merge ${gone.length} into ${personName(kept)}`}
      onConfirm={() => kept && merge.mutate({ keepId: kept.id, sourceIds: gone.map((c) => c.id) }, {
        onSuccess: () => {
          notifications.show({ color: 'green', message: `${gone.map(personName).join(', ')} merged into ${personName(kept)}` });
          onClose();
        },
      })}>
      {records.length > 0 && (
        <Radio.Group label="Which record do you keep?" value={keep} onChange={chooseKeep}>
          <Stack gap="xs" mt="xs">
            {records.map((c) => <Radio key={c.id} value={String(c.id)} label={`${personName(c)} (#${c.id})`} description={describe(c)} />)}
          </Stack>
        </Radio.Group>
      )}
      {records.length > 1 && kept && (
        <Checkbox.Group label={`Merge into ${personName(kept)}`} value={sources} onChange={(v) => { setSources(v); merge.reset(); }}
          error={tooMany ? `At most ${MAX_SOURCES} records merge at once` : undefined}>
          <Stack gap="xs" mt="xs">
            {records.filter((c) => c !== kept).map((c) => <Checkbox key={c.id} value={String(c.id)} label={`${personName(c)} (#${c.id})`} />)}
          </Stack>
        </Checkbox.Group>
      )}
      <AddRecord exclude={records.map((c) => c.id)} onAdd={add} />
      {kept && gone.length > 0 ? (
        <Text>
          Everything about {joinNames(gone)} — emails, phones, addresses, groups, attendance, giving, tasks and a household
          if {personName(kept)} has none — moves to {personName(kept)} (#{kept.id}); what they share is kept once.
          Then {gone.length === 1 ? `#${gone[0].id} is` : `${gone.map((c) => `#${c.id}`).join(', ')} are`} deleted. This cannot be undone.
        </Text>
      ) : (
        <Text c="dimmed">Choose the record to keep and at least one record to merge into it.</Text>
      )}
    </ConfirmDialog>
  );
}

/** Adds another record to the merge, found by name, email or phone digits. */
function AddRecord({ exclude, onAdd }: { exclude: number[]; onAdd(c: Contact): void }) {
  const [search, setSearch] = useState('');
  const [debounced] = useDebouncedValue(search, 250);
  const people = usePersonSearch(debounced);
  const found = (people.data?.data ?? []).filter((p) => !exclude.includes(p.id));
  const options = found.map((p) => ({ value: String(p.id), label: `${personName(p)} (#${p.id})` }));
  return (
    <Select label="Add another record" placeholder="Type a name, email or phone" searchable data={options} value={null}
      searchValue={search} onSearchChange={setSearch} nothingFoundMessage={debounced.trim() ? 'Nobody matches' : 'Type to search'}
      onChange={(value) => {
        const picked = found.find((p) => String(p.id) === value);
        if (picked) { onAdd(picked); setSearch(''); }
      }} />
  );
}
