import { Anchor, Badge, Breadcrumbs, Button, Card, Group, Pagination, Radio, SimpleGrid, Stack, Text } from '@mantine/core';
import { notifications } from '@mantine/notifications';
import { useState } from 'react';
import { Link, useSearchParams } from 'react-router';
import { Can, ErrorAlert, Loading, Page, useFormat } from '../../shared';
import { ConfirmDialog } from '../../shared/confirm';
import { useDuplicates, useMerge, type DuplicatePair } from './api';
import { personName, primary } from './names';

const REASONS: Record<string, string> = { email: 'Same email', phone: 'Same phone', name: 'Same name' };

type Contact = DuplicatePair['contacts'][number];

/** Likely duplicates (shared email, phone digits or name), each pair mergeable with privacy:write. */
export function DuplicatesPage() {
  const f = useFormat();
  const [params, setParams] = useSearchParams();
  const page = Number(params.get('page') ?? 1);
  const duplicates = useDuplicates(page);
  const [merging, setMerging] = useState<DuplicatePair | null>(null);
  const total = duplicates.data?.total ?? 0;

  return (
    <Page title="Possible duplicates">
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
            {duplicates.data.data.map((pair) => {
              const [a, b] = pair.contacts;
              const label = `${personName(a)} and ${personName(b)}`;
              return (
                <Card key={`${a.id}-${b.id}`} withBorder component="section" aria-label={label}>
                  <Group justify="space-between" mb="xs" gap="xs">
                    <Group gap="xs">
                      {pair.reasons.map((r) => <Badge key={r} variant="light" color={r === pair.reason ? 'indigo' : 'gray'}>{REASONS[r] ?? r}</Badge>)}
                    </Group>
                    <Can permission="privacy:write">
                      <Button size="xs" onClick={() => setMerging(pair)} aria-label={`Merge ${label}`}>Merge…</Button>
                    </Can>
                  </Group>
                  <SimpleGrid cols={{ base: 1, sm: 2 }} spacing="xs">
                    <ContactSummary contact={a} />
                    <ContactSummary contact={b} />
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
      {merging && <MergeDialog pair={merging} onClose={() => setMerging(null)} />}
    </Page>
  );
}

function ContactSummary({ contact }: { contact: Contact }) {
  const email = primary(contact.emails);
  const phone = primary(contact.phones);
  return (
    <Stack gap={0}>
      <Text><Anchor component={Link} to={`/people/${contact.id}`} fw={600}>{personName(contact)}</Anchor> <Text span size="sm" c="dimmed">#{contact.id}</Text></Text>
      <Text size="sm" c="dimmed">
        {[email, phone, contact.status].filter(Boolean).join(' · ')}{contact.householdId ? ' · in a household' : ''}
      </Text>
    </Stack>
  );
}

function MergeDialog({ pair, onClose }: { pair: DuplicatePair; onClose(): void }) {
  const [a, b] = pair.contacts;
  const [keep, setKeep] = useState(String(a.id));
  const merge = useMerge();
  const kept = keep === String(a.id) ? a : b;
  const gone = kept === a ? b : a;
  const describe = (c: Contact) => [primary(c.emails), primary(c.phones)].filter(Boolean).join(' · ') || 'no email or phone';

  return (
    <ConfirmDialog opened onClose={onClose} title={`Merge ${personName(a)} and ${personName(b)}?`} confirmLabel={`Keep ${personName(kept)} and merge`}
      loading={merge.isPending} error={merge.error}
      onConfirm={() => merge.mutate({ keepId: kept.id, sourceId: gone.id }, {
        onSuccess: () => { notifications.show({ color: 'green', message: `${personName(gone)} merged into ${personName(kept)}` }); onClose(); },
      })}>
      <Radio.Group label="Which record do you keep?" value={keep} onChange={(v) => { setKeep(v); merge.reset(); }}>
        <Stack gap="xs" mt="xs">
          {[a, b].map((c) => <Radio key={c.id} value={String(c.id)} label={`${personName(c)} (#${c.id})`} description={describe(c)} />)}
        </Stack>
      </Radio.Group>
      <Text>
        Everything about the other record (#{gone.id}) — emails, phones, addresses, groups, attendance, giving, tasks and its household if
        #{kept.id} has none — moves to #{kept.id}; what both already have is kept once. Then #{gone.id} is deleted. This cannot be undone.
      </Text>
    </ConfirmDialog>
  );
}
