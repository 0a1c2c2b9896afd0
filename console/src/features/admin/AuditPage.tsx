import { Anchor, Code, Group, Pagination, Select, SimpleGrid, Stack, Table, Text, TextInput } from '@mantine/core';
import { Link, useSearchParams } from 'react-router';
import { CHANGE_TYPES } from '../../../../src/changes/types.js';
import { ErrorAlert, Loading, useFormat, useSignedIn } from '../../shared';
import { useAllUsers, useAudit } from './api';
import { AdminPage } from './sections';

/** Every change type of the audit (modules-contract §7), for the action filter: the server's own list. */
const TYPES = [...CHANGE_TYPES];
const ENTITY_TYPES = [...new Set(TYPES.map((t) => t.slice(0, t.indexOf('.'))))].sort();

/** Where an entity's own page is, when the console has one. */
const PAGES: Record<string, string> = { contact: '/people', household: '/households', group: '/groups' };

const show = (value: unknown) => (value === null || value === undefined || value === '' ? '—' : typeof value === 'object' ? JSON.stringify(value) : String(value));

/** The audit log: every change the caller may read, newest first, filtered and paged. */
export function AuditPage() {
  const f = useFormat();
  const { can } = useSignedIn();
  const [params, setParams] = useSearchParams();
  const get = (k: string) => params.get(k) ?? '';
  const page = Number(params.get('page') ?? 1);
  const users = useAllUsers(can('users:read'));
  const actor = get('user');
  const audit = useAudit({
    page, limit: 25,
    entityType: get('entity') || undefined,
    actorUserId: actor ? Number(actor) : undefined,
    type: get('action') || undefined,
    from: get('from') || undefined,
    to: get('to') || undefined,
  });
  const set = (next: Record<string, string | null>) => {
    const out = { ...Object.fromEntries(params), page: '1' } as Record<string, string>;
    for (const [k, v] of Object.entries(next)) if (v) out[k] = v; else delete out[k];
    setParams(out, { replace: true });
  };
  const total = audit.data?.total ?? 0;
  const filtered = ['entity', 'user', 'action', 'from', 'to'].some((k) => get(k));

  return (
    <AdminPage title="Audit log">
      <SimpleGrid cols={{ base: 1, xs: 2, md: 5 }}>
        <Select label="Record type" placeholder="Any" clearable searchable data={ENTITY_TYPES} value={get('entity') || null} onChange={(v) => set({ entity: v })} />
        {can('users:read') ? (
          <Select label="Who" placeholder="Anyone" clearable searchable value={actor || null} onChange={(v) => set({ user: v })}
            data={(users.data?.data ?? []).map((u) => ({ value: String(u.id), label: u.username }))} />
        ) : (
          <TextInput label="Who (user number)" inputMode="numeric" value={actor} onChange={(e) => set({ user: e.currentTarget.value.replace(/\D/g, '') })} />
        )}
        <Select label="Action" placeholder="Any" clearable searchable data={TYPES} value={get('action') || null} onChange={(v) => set({ action: v })} />
        <TextInput label="From" type="date" value={get('from')} onChange={(e) => set({ from: e.currentTarget.value })} />
        <TextInput label="To" type="date" value={get('to')} onChange={(e) => set({ to: e.currentTarget.value })} />
      </SimpleGrid>
      <ErrorAlert error={audit.error} />
      {audit.isPending ? <Loading /> : audit.data && (
        <>
          <Text size="sm" aria-live="polite">
            {total === 0 ? (filtered ? 'No change matches these filters. Widen the dates or clear a filter.' : 'Nothing has been recorded yet.') : `${f.number(total)} ${total === 1 ? 'change' : 'changes'}, newest first`}
          </Text>
          {audit.data.data.length > 0 && (
            <Table.ScrollContainer minWidth={300}>
              <Table striped stickyHeader>
                <Table.Thead>
                  <Table.Tr>
                    <Table.Th>When</Table.Th>
                    <Table.Th>Who</Table.Th>
                    <Table.Th>What</Table.Th>
                    <Table.Th visibleFrom="sm">Details</Table.Th>
                  </Table.Tr>
                </Table.Thead>
                <Table.Tbody>
                  {audit.data.data.map((c) => {
                    const page = PAGES[c.entity.type];
                    const entity = `${c.entity.type} ${c.entity.id}`;
                    return (
                      <Table.Tr key={c.id}>
                        <Table.Td style={{ minWidth: 96 }}>{f.dateTime(c.occurredAt)}</Table.Td>
                        <Table.Td>{c.actor ? (c.actor.username ?? `user ${c.actor.id} (deleted)`) : <Text size="sm" c="dimmed">System</Text>}</Table.Td>
                        <Table.Td>
                          <Stack gap={0}>
                            <Code style={{ overflowWrap: 'anywhere' }}>{c.type}</Code>
                            {page && c.type !== `${c.entity.type}.deleted` ? <Anchor component={Link} to={`${page}/${c.entity.id}`} size="sm">{entity}</Anchor> : <Text size="sm">{entity}</Text>}
                          </Stack>
                        </Table.Td>
                        <Table.Td visibleFrom="sm">
                          {c.changes ? (
                            <Stack gap={0}>
                              {Object.entries(c.changes).map(([field, d]) => <Text key={field} size="xs"><b>{field}</b>: {show(d.from)} → {show(d.to)}</Text>)}
                            </Stack>
                          ) : <Text size="xs" c="dimmed" lineClamp={2}>{Object.entries(c.data).filter(([, v]) => typeof v !== 'object').map(([k, v]) => `${k}: ${show(v)}`).join(' · ')}</Text>}
                        </Table.Td>
                      </Table.Tr>
                    );
                  })}
                </Table.Tbody>
              </Table>
            </Table.ScrollContainer>
          )}
          {total > audit.data.limit && (
            <Group justify="center">
              <Pagination total={Math.ceil(total / audit.data.limit)} value={page} onChange={(n) => set({ page: String(n) })}
                getControlProps={(control) => ({ 'aria-label': `${control} page` })} getItemProps={(n) => ({ 'aria-label': `Page ${n}` })} />
            </Group>
          )}
        </>
      )}
    </AdminPage>
  );
}
