import { Anchor, Group, Pagination, Select, Table, Text } from '@mantine/core';
import { Link, useSearchParams } from 'react-router';
import { ErrorAlert, GroupPicker, Loading, Page, useFormat } from '../../shared';
import { useServices, useSessions } from './api';
import { AreaNav } from './AreaNav';
import { sessionName } from './SessionPage';

/** Recent sessions with their counts, newest first; filter by a group's subtree or a service. */
export function SessionsListPage() {
  const f = useFormat();
  const [params, setParams] = useSearchParams();
  const groupId = params.get('groupId') ? Number(params.get('groupId')) : undefined;
  const serviceId = params.get('serviceId') ? Number(params.get('serviceId')) : undefined;
  const page = Number(params.get('page') ?? 1);
  const sessions = useSessions({ groupId, serviceId, page });
  const services = useServices();
  const set = (next: Record<string, string | undefined>) => {
    const merged = { ...Object.fromEntries(params), page: '1', ...next };
    setParams(Object.fromEntries(Object.entries(merged).filter(([, v]) => v !== undefined && v !== '')) as Record<string, string>, { replace: true });
  };
  const total = sessions.data?.total ?? 0;

  return (
    <Page title="Sessions">
      <AreaNav />
      <Group align="flex-end" gap="sm">
        <GroupPicker label="Group (and the groups under it)" clearable placeholder="All groups you can see"
          value={groupId ? { id: groupId, name: params.get('groupName') ?? `Group ${groupId}` } : null}
          onChange={(g) => set({ groupId: g ? String(g.id) : undefined, groupName: g?.name })} />
        <Select label="Service" placeholder="Any service or meeting" clearable miw={200}
          data={(services.data?.data ?? []).map((s) => ({ value: String(s.id), label: s.name }))}
          value={serviceId ? String(serviceId) : null} onChange={(v) => set({ serviceId: v ?? undefined })} />
      </Group>
      <ErrorAlert error={sessions.error} />
      {sessions.isPending ? <Loading /> : sessions.data && (
        <>
          <Text size="sm" aria-live="polite">
            {total === 0
              ? (groupId || serviceId ? 'No session matches these filters. Clear a filter to see more.' : 'No sessions yet. Open one from “This Sunday”.')
              : `${f.number(total)} ${total === 1 ? 'session' : 'sessions'}`}
          </Text>
          {sessions.data.data.length > 0 && (
            <Table.ScrollContainer minWidth={320}>
              <Table striped highlightOnHover stickyHeader>
                <Table.Thead>
                  <Table.Tr>
                    <Table.Th>Date</Table.Th>
                    <Table.Th>Session</Table.Th>
                    <Table.Th ta="right">Present</Table.Th>
                    <Table.Th ta="right" visibleFrom="sm">Guests</Table.Th>
                    <Table.Th ta="right" visibleFrom="sm">First time</Table.Th>
                    <Table.Th ta="right" visibleFrom="sm">Headcount</Table.Th>
                  </Table.Tr>
                </Table.Thead>
                <Table.Tbody>
                  {sessions.data.data.map((s) => (
                    <Table.Tr key={s.id}>
                      <Table.Td style={{ whiteSpace: 'nowrap' }}>{f.date(s.date)}</Table.Td>
                      <Table.Td>
                        <Anchor component={Link} to={`/attendance/sessions/${s.id}`}>{sessionName(s)}</Anchor>
                        {s.service && s.group && <Text size="xs" c="dimmed">{s.group.name}</Text>}
                        {s.didNotMeet && <Text size="xs" c="dimmed">Did not meet</Text>}
                      </Table.Td>
                      <Table.Td ta="right">{f.number(s.presentCount)}</Table.Td>
                      <Table.Td ta="right" visibleFrom="sm">{f.number(s.guestCount)}</Table.Td>
                      <Table.Td ta="right" visibleFrom="sm">{f.number(s.firstTimeCount)}</Table.Td>
                      <Table.Td ta="right" visibleFrom="sm">{f.number(s.headcountTotal)}</Table.Td>
                    </Table.Tr>
                  ))}
                </Table.Tbody>
              </Table>
            </Table.ScrollContainer>
          )}
          {total > sessions.data.limit && (
            <Group justify="center">
              <Pagination total={Math.ceil(total / sessions.data.limit)} value={page} onChange={(n) => set({ page: String(n) })}
                getControlProps={(control) => ({ 'aria-label': `${control} page` })} getItemProps={(n) => ({ 'aria-label': `Page ${n}` })} />
            </Group>
          )}
        </>
      )}
    </Page>
  );
}
