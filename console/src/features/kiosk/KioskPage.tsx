import { Alert, Badge, Box, Button, Card, Checkbox, Group, NativeSelect, SegmentedControl, SimpleGrid, Stack, Text, TextInput, Title } from '@mantine/core';
import { useEffect, useState, type FormEvent } from 'react';
import { useNavigate } from 'react-router';
import { errorMessage, Loading, useSession, useSignedIn } from '../../shared';
import { labelsPdf, useCheckIn, useCheckOut, useFamilies, useTodaysSessions, type CheckedIn, type Family, type KioskSession } from './api';

/** Touch targets: at least 44 px (console.md "the kiosk is built for touch"); the kiosk uses 56. */
const TOUCH = 56;
/** Alerts keep the tint for meaning and the body text colour for reading (AA contrast on the light tint). */
const ALERT = { title: { color: 'var(--mantine-color-text)', fontSize: 18 }, message: { color: 'var(--mantine-color-text)' } };

/**
 * The check-in kiosk: full screen, for a volunteer who has never seen it. Pick today's session once,
 * then check families in (find, tap the children, check in, print labels) or check them out by code.
 */
export function KioskPage() {
  const { tenant, can } = useSignedIn();
  const { signOut } = useSession();
  const navigate = useNavigate();
  const sessions = useTodaysSessions();
  const [picked, setPicked] = useState<KioskSession | undefined>();
  const [mode, setMode] = useState<'in' | 'out'>('in');
  const list = sessions.data?.data ?? [];
  const session = picked ?? (list.length === 1 ? list[0] : undefined);
  const officeUser = can('contacts:read') || can('attendance:read');

  useEffect(() => {
    document.title = 'Check-in · Parish';
  }, []);

  return (
    <Box mih="100vh" bg="var(--mantine-color-body)">
      <Box component="header" px="md" py="xs" style={{ borderBottom: '1px solid var(--mantine-color-default-border)' }}>
        <Group justify="space-between" wrap="nowrap" gap="xs">
          <Stack gap={0} miw={0}>
            <Text fw={700} size="lg" truncate="end">{tenant.name} · Check-in</Text>
            {session && <Text size="sm" c="dimmed">{session.name}{session.startTime ? ` at ${session.startTime}` : ''} · today</Text>}
          </Stack>
          <Group gap="xs" wrap="nowrap">
            {session && list.length > 1 && <Button variant="default" mih={44} onClick={() => setPicked(undefined)}>Change session</Button>}
            {officeUser
              ? <Button variant="default" mih={44} onClick={() => navigate('/')}>Leave kiosk</Button>
              : <Button variant="default" mih={44} onClick={async () => { await signOut(); navigate('/sign-in', { replace: true }); }}>Sign out</Button>}
          </Group>
        </Group>
      </Box>
      <Box component="main" p="md" maw={960} mx="auto">
        {sessions.isPending ? <Loading label="Loading today's sessions" />
          : sessions.isError ? <Problem error={sessions.error} title="Today's sessions could not be loaded" />
          : list.length === 0 ? (
            <Alert styles={ALERT} color="yellow" title="No session is open today" role="status">
              There is nothing to check in to yet. Ask the church office to open today's session, then tap “Try again”.
              <Group mt="md"><Button mih={TOUCH} size="lg" onClick={() => sessions.refetch()}>Try again</Button></Group>
            </Alert>
          )
          : !session ? <SessionPicker sessions={list} onPick={setPicked} />
          : (
            <Stack gap="lg">
              <SegmentedControl fullWidth size="lg" value={mode} onChange={(v) => setMode(v as 'in' | 'out')}
                data={[{ value: 'in', label: 'Check in' }, { value: 'out', label: 'Check out' }]} aria-label="Check in or check out" />
              {mode === 'in' ? <CheckInPanel key={session.id} session={session} /> : <CheckOutPanel key={session.id} session={session} />}
            </Stack>
          )}
      </Box>
    </Box>
  );
}

function SessionPicker({ sessions, onPick }: { sessions: KioskSession[]; onPick(s: KioskSession): void }) {
  return (
    <Stack gap="md">
      <Title order={1} size="h2">Which service are you checking in to?</Title>
      {sessions.map((s) => (
        <Button key={s.id} size="xl" mih={TOUCH} variant="default" justify="space-between" onClick={() => onPick(s)}
          rightSection={s.startTime ? <Text c="dimmed">{s.startTime}</Text> : undefined}>
          {s.name}
        </Button>
      ))}
    </Stack>
  );
}

function CheckInPanel({ session }: { session: KioskSession }) {
  const [typed, setTyped] = useState('');
  const [q, setQ] = useState('');
  const [hint, setHint] = useState<string>();
  const [chosen, setChosen] = useState<number[]>([]);
  const [roomOf, setRoomOf] = useState<Record<number, number | null>>({});
  const [done, setDone] = useState<CheckedIn>();
  const families = useFamilies(q);
  const checkIn = useCheckIn();

  const search = (e: FormEvent) => {
    e.preventDefault();
    const text = typed.trim();
    const digits = text.replace(/\D/g, '');
    if (/\d/.test(text) ? digits.length < 4 : text.length < 2) {
      setHint('Type at least 2 letters of the last name, or at least 4 digits of a phone number.');
      return;
    }
    setHint(undefined);
    setChosen([]);
    checkIn.reset();
    setQ(text);
  };
  const toggle = (id: number) => setChosen((c) => (c.includes(id) ? c.filter((x) => x !== id) : [...c, id]));
  const submit = async () => {
    const rooms = session.rooms.length ? chosen.map((id) => ({ contactId: id, roomGroupId: roomOf[id] ?? null })) : undefined;
    const answer = await checkIn.mutateAsync({ sessionId: session.id, contactIds: chosen, rooms }).catch(() => undefined);
    if (answer) setDone(answer);
  };
  const reset = () => {
    setDone(undefined);
    setChosen([]);
    setRoomOf({});
    setTyped('');
    setQ('');
    checkIn.reset();
  };

  if (done) return <><Heading text="Checked in: print the labels" /><CheckedInPanel done={done} onNext={reset} /></>;
  const people = (families.data?.data ?? []).flatMap((f) => f.people);
  const names = chosen.map((id) => people.find((p) => p.id === id)?.firstName).filter(Boolean);

  return (
    <Stack gap="md">
      <Heading text="Check in: find the family" />
      <form onSubmit={search}>
        <Group align="flex-end" gap="sm" wrap="nowrap">
          <TextInput style={{ flex: 1 }} size="lg" label="Family's last name or phone number" placeholder="e.g. Okello or 4189"
            value={typed} onChange={(e) => setTyped(e.currentTarget.value)} error={hint} autoComplete="off" autoFocus />
          <Button type="submit" size="lg" mih={TOUCH} loading={families.isFetching}>Find</Button>
        </Group>
      </form>
      {families.isError && <Problem error={families.error} title="The search did not work" />}
      {families.data && families.data.data.length === 0 && (
        <Alert styles={ALERT} color="gray" title={`No family found for “${q}”`} role="status">
          Check the spelling, or try a phone number instead. New families are added by the church office.
        </Alert>
      )}
      {families.data && families.data.data.length > 0 && (
        <>
          <Text>Tap each child to check in, then tap the green button.</Text>
          {families.data.data.map((f, i) => <FamilyCard key={f.household?.id ?? `p${i}`} family={f} chosen={chosen} onToggle={toggle} />)}
          {session.rooms.length > 0 && chosen.length > 0 && (
            <Card withBorder padding="md" component="section" aria-label="Rooms">
              <Title order={2} size="h3" mb="sm">Which room?</Title>
              <SimpleGrid cols={{ base: 1, sm: 2 }} spacing="sm">
                {chosen.map((id) => {
                  const p = people.find((x) => x.id === id);
                  return (
                    <NativeSelect key={id} size="lg" label={`Room for ${p?.firstName ?? ''}`} value={String(roomOf[id] ?? '')}
                      onChange={(e) => { const v = e.currentTarget.value; setRoomOf((r) => ({ ...r, [id]: v ? Number(v) : null })); }}
                      data={[{ value: '', label: 'No room' }, ...session.rooms.map((r) => ({ value: String(r.id), label: r.name }))]} />
                  );
                })}
              </SimpleGrid>
            </Card>
          )}
          {checkIn.isError && <Problem error={checkIn.error} title="Not checked in" />}
          <Button size="xl" mih={64} color="#1e6b30" fw={700} disabled={chosen.length === 0} loading={checkIn.isPending} onClick={submit}
            style={{ position: 'sticky', bottom: 12 }}>
            {chosen.length === 0 ? 'Tap the children to check in' : `Check in ${names.join(', ')}`}
          </Button>
        </>
      )}
    </Stack>
  );
}

function FamilyCard({ family, chosen, onToggle }: { family: Family; chosen: number[]; onToggle(id: number): void }) {
  const title = family.household?.name ?? `${family.people[0]?.firstName ?? ''} ${family.people[0]?.lastName ?? ''}`;
  return (
    <Card withBorder padding="md" component="section" aria-label={title}>
      <Title order={2} size="h3" mb="sm">{title}</Title>
      <SimpleGrid cols={{ base: 1, xs: 2, md: 3 }} spacing="sm">
        {family.people.map((p) => (
          <Checkbox.Card key={p.id} checked={chosen.includes(p.id)} onClick={() => onToggle(p.id)} radius="md" p="md" mih={TOUCH}
            aria-label={`${p.firstName} ${p.lastName}`}>
            <Group wrap="nowrap" gap="md">
              <Checkbox.Indicator size="lg" />
              <div>
                <Text fw={600} size="lg">{p.firstName} {p.lastName}</Text>
                <Text size="sm" c="dimmed">{[p.role, p.age === null ? undefined : `${p.age} yrs`].filter(Boolean).join(' · ') || ' '}</Text>
              </div>
            </Group>
          </Checkbox.Card>
        ))}
      </SimpleGrid>
    </Card>
  );
}

function CheckedInPanel({ done, onNext }: { done: CheckedIn; onNext(): void }) {
  const [pdf, setPdf] = useState<string>();
  const [failed, setFailed] = useState<unknown>();
  const ids = done.checkIns.map((k) => k.id);
  const load = () => {
    setFailed(undefined);
    labelsPdf(ids).then(setPdf, setFailed);
  };
  // The labels are fetched at once: the volunteer taps one link to print them.
  useEffect(load, [ids.join(',')]);
  useEffect(() => () => { if (pdf) URL.revokeObjectURL(pdf); }, [pdf]);

  return (
    <Stack gap="lg">
      <Alert styles={ALERT} color="green" title="Checked in" role="status">
        <Text size="lg">{done.checkIns.map((k) => `${k.contact.firstName} ${k.contact.lastName}${k.room ? ` (${k.room.name})` : ''}`).join(', ')}</Text>
      </Alert>
      <Card withBorder padding="lg">
        <Stack gap="xs" align="center">
          <Text size="lg">Security code for pick-up</Text>
          <Badge size="xl" h={64} px="xl" radius="md" variant="outline" style={{ fontSize: 40, letterSpacing: 8 }} aria-label={`Security code ${done.securityCode.split('').join(' ')}`}>
            {done.securityCode}
          </Badge>
          <Text c="dimmed" ta="center">The parent keeps the stub with this code and shows it at pick-up.</Text>
        </Stack>
      </Card>
      {failed !== undefined && (
        <Alert styles={ALERT} color="red" title="The labels could not be made" role="alert">
          {errorMessage(failed)}
          <Group mt="sm"><Button mih={TOUCH} onClick={load}>Try again</Button></Group>
        </Alert>
      )}
      <SimpleGrid cols={{ base: 1, sm: 2 }}>
        <Button component="a" href={pdf} target="_blank" rel="noopener" size="xl" mih={64} loading={!pdf && failed === undefined}
          disabled={!pdf} aria-disabled={!pdf} download={undefined}>
          Print labels
        </Button>
        <Button size="xl" mih={64} variant="default" onClick={onNext}>Next family</Button>
      </SimpleGrid>
    </Stack>
  );
}

function CheckOutPanel({ session }: { session: KioskSession }) {
  const [code, setCode] = useState('');
  const checkOut = useCheckOut();
  const submit = (e: FormEvent) => {
    e.preventDefault();
    if (code.trim()) checkOut.mutate({ sessionId: session.id, securityCode: code.trim().toUpperCase() });
  };
  const out = checkOut.data?.data ?? [];
  return (
    <Stack gap="md">
      <Heading text="Check out: type the code from the parent's stub" />
      <form onSubmit={submit}>
        <Group align="flex-end" gap="sm" wrap="nowrap">
          <TextInput style={{ flex: 1 }} size="lg" label="Security code from the parent's stub" placeholder="e.g. K7Q4" maxLength={10}
            value={code} onChange={(e) => { setCode(e.currentTarget.value.toUpperCase()); checkOut.reset(); }} autoComplete="off" autoCapitalize="characters"
            styles={{ input: { fontSize: 28, letterSpacing: 6, fontFamily: 'monospace' } }} />
          <Button type="submit" size="lg" mih={TOUCH} loading={checkOut.isPending} disabled={!code.trim()}>Check out</Button>
        </Group>
      </form>
      {checkOut.isError && (
        <Alert styles={ALERT} color="red" title="Not checked out" role="alert">
          <Text size="lg">{errorMessage(checkOut.error)}</Text>
        </Alert>
      )}
      {checkOut.isSuccess && (
        <Alert styles={ALERT} color="green" title="Checked out" role="status">
          <Text size="lg">{out.map((k) => `${k.contact.firstName} ${k.contact.lastName}`).join(', ')} may go home.</Text>
          <Group mt="md"><Button mih={TOUCH} size="lg" onClick={() => { setCode(''); checkOut.reset(); }}>Next code</Button></Group>
        </Alert>
      )}
    </Stack>
  );
}

/** The API's message where the volunteer acts on it (darker shades: AA contrast on the light alert). */
function Problem({ error, title }: { error: unknown; title: string }) {
  return (
    <Alert styles={ALERT} color="red" title={title} role="alert">
      <Text size="lg">{errorMessage(error)}</Text>
    </Alert>
  );
}

function Heading({ text }: { text: string }) {
  return <Title order={1} size="h3">{text}</Title>;
}
