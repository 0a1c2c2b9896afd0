import { Button, Card, Group, SimpleGrid, Stack, Text, TextInput, Title } from '@mantine/core';
import { useState, type FormEvent } from 'react';
import { useNavigate } from 'react-router';
import { ErrorAlert, GroupPicker, Loading, Page, useFormat, useSignedIn, type PickedGroup } from '../../shared';
import { todayIn, useOpenSession, useServices, useSessions, type Service, type SessionRow, type SessionSource } from './api';
import { AreaNav } from './AreaNav';

const DAYS = ['Sundays', 'Mondays', 'Tuesdays', 'Wednesdays', 'Thursdays', 'Fridays', 'Saturdays'];

/** Where attendance is taken: today's session of each service, or a small group's on a date. */
export function ThisSundayPage() {
  const f = useFormat();
  const { tenant, can } = useSignedIn();
  const today = todayIn(tenant.timeZone);
  const services = useServices();
  const todays = useSessions({ from: today, to: today, limit: 100 });
  const open = useOpenSession();
  const navigate = useNavigate();
  const write = can('attendance:write');
  const forGroup = !!open.variables && 'groupId' in open.variables;

  const take = (source: SessionSource, date: string) => open.mutate({ ...source, date }, {
    onSuccess: ({ id, warnings }) => navigate(`/attendance/sessions/${id}`, { state: { warnings } }),
  });
  const sessionOf = (s: Service) => todays.data?.data.find((x) => x.service?.id === s.id);

  return (
    <Page title="Attendance">
      <AreaNav />
      <Text>Today is {f.date(today)}.{write ? ' Take attendance for a service, or for a small group below.' : ''}</Text>
      {!forGroup && <ErrorAlert error={open.error} title="The session could not be opened" />}
      <Title order={2} size="h3">Services</Title>
      <ErrorAlert error={services.error ?? todays.error} />
      {services.isPending ? <Loading label="Loading services" /> : services.data && (
        services.data.data.length === 0
          ? <Text c="dimmed">No services yet. A service (like the Sunday service) is set up once by the office; until then, take attendance for a group below.</Text>
          : (
            <SimpleGrid cols={{ base: 1, sm: 2, lg: 3 }}>
              {services.data.data.map((s) => (
                <ServiceCard key={s.id} service={s} session={sessionOf(s)} write={write} busy={open.isPending && open.variables && 'serviceId' in open.variables && open.variables.serviceId === s.id}
                  onTake={() => take({ serviceId: s.id }, today)} onOpen={(id) => navigate(`/attendance/sessions/${id}`)} />
              ))}
            </SimpleGrid>
          )
      )}
      {write && <GroupSessionCard today={today} busy={open.isPending && forGroup} error={forGroup ? open.error : null} onOpen={(groupId, date) => take({ groupId }, date)} />}
    </Page>
  );
}

function ServiceCard({ service: s, session, write, busy, onTake, onOpen }: {
  service: Service; session?: SessionRow; write: boolean; busy?: boolean; onTake(): void; onOpen(id: number): void;
}) {
  return (
    <Card withBorder component="section" aria-label={s.name}>
      <Stack gap={6}>
        <Group justify="space-between" wrap="nowrap" align="flex-start">
          <Title order={3} size="h4">{s.name}</Title>
          {session && <Text size="sm" fw={600} style={{ whiteSpace: "nowrap" }}>{session.presentCount} present</Text>}
        </Group>
        <Text size="sm" c="dimmed">{s.group.name} · {DAYS[s.dayOfWeek]} at {s.startTime}</Text>
        <Group mt="xs">
          {write
            ? <Button mih={44} loading={busy} onClick={session ? () => onOpen(session.id) : onTake}>{session ? 'Continue attendance' : 'Take attendance'}</Button>
            : session && <Button variant="default" mih={44} onClick={() => onOpen(session.id)}>See today’s attendance</Button>}
        </Group>
        {!write && !session && <Text size="sm" c="dimmed">No session today yet.</Text>}
      </Stack>
    </Card>
  );
}

function GroupSessionCard({ today, busy, error, onOpen }: { today: string; busy: boolean; error: unknown; onOpen(groupId: number, date: string): void }) {
  const [group, setGroup] = useState<PickedGroup | null>(null);
  const [date, setDate] = useState(today);
  const [hint, setHint] = useState<string>();
  const submit = (e: FormEvent) => {
    e.preventDefault();
    if (!group) return setHint('Choose the group first.');
    if (!/^\d{4}-\d{2}-\d{2}$/.test(date)) return setHint('Choose the date of the meeting.');
    setHint(undefined);
    onOpen(group.id, date);
  };
  return (
    <Card withBorder component="section" aria-label="A small group or fellowship">
      <Title order={2} size="h3" mb={4}>A small group or fellowship</Title>
      <Text size="sm" c="dimmed" mb="sm">Opens the group’s meeting on that date, or starts it if nobody has yet.</Text>
      <form onSubmit={submit} noValidate>
        <Group align="flex-end" gap="sm">
          <GroupPicker label="Group" value={group} onChange={(g) => { setGroup(g); setHint(undefined); }} />
          <TextInput type="date" label="Date" value={date} onChange={(e) => setDate(e.currentTarget.value)} w={170} max="9999-12-31" />
          <Button type="submit" mih={44} loading={busy}>Take attendance</Button>
        </Group>
        {hint && <Text c="red.8" size="sm" mt="xs" role="alert">{hint}</Text>}
        {!hint && error ? <Stack mt="xs"><ErrorAlert error={error} title="The session could not be opened" /></Stack> : null}
      </form>
    </Card>
  );
}
