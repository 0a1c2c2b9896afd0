import { Alert, Anchor, Badge, Breadcrumbs, Card, Group, Stack, Text, Title } from '@mantine/core';
import { useMemo, type ReactNode } from 'react';
import { Link, useLocation, useParams } from 'react-router';
import { ErrorAlert, Loading, Page, useFormat, useSignedIn } from '../../shared';
import { useSession, type SessionDetail } from './api';
import { READABLE_ALERT } from './ui';
import { Attended } from './Attended';
import { GuestForm } from './GuestForm';
import { Headcounts } from './Headcounts';
import { Roster } from './Roster';
import { useMarks } from './useMarks';

/** What a session is called: its service, else its event, else its group's meeting. */
export function sessionName(s: { service: { name: string } | null; event: { name: string } | null; group: { name: string } | null }): string {
  return s.service?.name ?? s.event?.name ?? (s.group ? `${s.group.name} meeting` : 'Session');
}

/** A session: the roster to tap, the count, guests, headcounts and who attended. */
export function SessionPage() {
  const id = Number(useParams().id);
  const session = useSession(id);
  if (session.isPending) return <Page title="Session"><Loading /></Page>;
  if (session.isError) {
    return (
      <Page title="Session">
        <ErrorAlert error={session.error} />
        <Text><Anchor component={Link} to="/attendance/sessions">Back to Sessions</Anchor></Text>
      </Page>
    );
  }
  return <SessionView session={session.data} />;
}

export function Section({ title, children, aside }: { title: string; children: ReactNode; aside?: ReactNode }) {
  return (
    <Card withBorder component="section" aria-label={title} padding="md">
      <Group justify="space-between" mb="sm" wrap="wrap" gap="xs">
        <Title order={2} size="h4">{title}</Title>
        {aside}
      </Group>
      {children}
    </Card>
  );
}

function SessionView({ session: s }: { session: SessionDetail }) {
  const f = useFormat();
  const { can } = useSignedIn();
  const write = can('attendance:write');
  const warnings = (useLocation().state as { warnings?: string[] } | null)?.warnings ?? [];
  const recorded = useMemo(() => new Set(s.records.flatMap((r) => (r.contact ? [r.contact.id] : []))), [s.records]);
  const marks = useMarks(s.id, recorded);
  const erased = s.records.length - recorded.size;
  const present = marks.count + erased;
  const name = sessionName(s);

  return (
    <Page title={name}>
      <Breadcrumbs>
        <Anchor component={Link} to="/attendance/sessions">Sessions</Anchor>
        <Text>{f.date(s.date)}</Text>
      </Breadcrumbs>
      {warnings.length > 0 && (
        <Alert color="yellow" title="Opened, but check this" styles={READABLE_ALERT}>
          <Stack gap={2}>{warnings.map((w) => <Text key={w} size="sm">{w}</Text>)}</Stack>
        </Alert>
      )}
      <Group gap="sm" wrap="wrap" py={6} style={{ position: 'sticky', top: 'var(--app-shell-header-offset, 0px)', zIndex: 2, background: 'var(--mantine-color-body)' }}>
        <Text size="xl" fw={700} aria-live="polite" data-testid="present-count">{f.number(present)} present</Text>
        {s.group && s.service && <Text c="dimmed">{s.group.name}</Text>}
        {s.didNotMeet && <Badge color="gray">Did not meet</Badge>}
        {write && <Text size="sm" c="dimmed" aria-live="polite">{marks.saving ? 'Saving…' : marks.unsaved ? 'Not saved yet' : 'All saved'}</Text>}
      </Group>
      {write && s.group && !can('groups:read') && <Text c="dimmed">Your role cannot list the group’s members; add people with the guest form.</Text>}
      {write && s.group && can('groups:read') && (
        <Section title="Members" aside={<Text size="sm" c="dimmed">Tap a name to mark them present; tap again to undo.</Text>}>
          <Roster groupId={s.group.id} groupName={s.group.name} marks={marks} />
        </Section>
      )}
      {write && <Section title="Add a guest"><GuestForm sessionId={s.id} /></Section>}
      {s.service && <Section title="Headcounts"><Headcounts session={s} write={write} /></Section>}
      <Section title={`Who attended (${s.records.length})`}><Attended records={s.records} /></Section>
    </Page>
  );
}
