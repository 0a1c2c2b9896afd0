import { Anchor, Badge, Button, Card, Group, List, SimpleGrid, Stack, Text, Title } from '@mantine/core';
import { notifications } from '@mantine/notifications';
import type { ReactNode } from 'react';
import { Link, useParams } from 'react-router';
import { Can, ErrorAlert, Loading, Page, useFormat, useSignedIn } from '../../shared';
import { AddToGroup } from './AddToGroup';
import { HouseholdSection } from './HouseholdSection';
import { NewTaskButton } from './NewTaskButton';
import { PrivacyActions } from './PrivacyActions';
import { useGiving, usePerson, useTasks, useTimeline, type Person } from './api';
import { personName } from './names';

/** A person's page: details, household, groups, tasks, giving (finance:read) and the timeline. */
export function PersonPage() {
  const id = Number(useParams().id);
  const person = usePerson(id);
  if (person.isPending) return <Page title="Person"><Loading /></Page>;
  if (person.isError) return <Page title="Person"><ErrorAlert error={person.error} /></Page>;
  return <PersonView person={person.data} />;
}

function Section({ title, children }: { title: string; children: ReactNode }) {
  return (
    <Card withBorder component="section" aria-label={title}>
      <Title order={2} size="h4" mb="xs">{title}</Title>
      {children}
    </Card>
  );
}

function PersonView({ person }: { person: Person }) {
  const f = useFormat();
  const { can } = useSignedIn();
  const name = personName(person);

  return (
    <Page title={name} actions={(can('contacts:write') || can('privacy:write')) && (
      <Group gap="xs">
        <Can permission="contacts:write"><Button component={Link} to={`/people/${person.id}/edit`}>Edit</Button></Can>
        <Can permission="privacy:write"><PrivacyActions id={person.id} name={name} /></Can>
      </Group>
    )}>
      <Group gap="xs"><Badge variant="light">{person.status}</Badge>{person.emailOptOut && <Badge color="gray" variant="light">No email</Badge>}</Group>
      <SimpleGrid cols={{ base: 1, md: 2 }}>
        <Section title="Details">
          <Stack gap={4}>
            {person.emails.map((e) => <Text key={e.value}><Anchor href={`mailto:${e.value}`}>{e.value}</Anchor>{e.isPrimary && person.emails.length > 1 ? ' (primary)' : ''}</Text>)}
            {person.phones.map((p) => <Text key={p.value}><Anchor href={`tel:${p.value}`}>{p.value}</Anchor></Text>)}
            {person.addresses.map((a, i) => <Text key={i}>{[a.street, a.city, a.country].filter(Boolean).join(', ')}</Text>)}
            {person.person?.dateOfBirth && <Text>Born {f.date(person.person.dateOfBirth)}</Text>}
            {person.emails.length + person.phones.length + person.addresses.length === 0 && <Text c="dimmed">No email, phone or address yet.</Text>}
          </Stack>
        </Section>
        <Section title="Household">
          <HouseholdSection person={person} name={name} />
        </Section>
        <Section title="Groups">
          <Stack gap="xs">
            {person.groupMemberships.length === 0 && <Text c="dimmed">Not in any group.</Text>}
            <List listStyleType="none" spacing={4}>
              {person.groupMemberships.map((m) => (
                <List.Item key={m.id}>
                  {can('groups:read') ? <Anchor component={Link} to={`/groups/${m.groupId}`}>{m.group.name}</Anchor> : m.group.name} · {m.role}{m.isActive ? '' : ' (inactive)'}
                </List.Item>
              ))}
            </List>
            <Can permission="groups:write">
              <AddToGroup contactId={person.id} onAdded={(group) => notifications.show({ color: 'green', message: `${name} added to ${group}` })}
                exclude={person.groupMemberships.map((m) => m.groupId)} />
            </Can>
          </Stack>
        </Section>
        {can('tasks:read') && <Tasks contactId={person.id} />}
        {can('finance:read') && <Giving contactId={person.id} />}
      </SimpleGrid>
      <Timeline contactId={person.id} />
    </Page>
  );
}

function Tasks({ contactId }: { contactId: number }) {
  const f = useFormat();
  const tasks = useTasks(contactId, true);
  return (
    <Section title="Tasks">
      <ErrorAlert error={tasks.error} />
      {tasks.data?.data.length === 0 && <Text c="dimmed">No tasks about this person.</Text>}
      <List listStyleType="none" spacing={4}>
        {tasks.data?.data.map((t) => (
          <List.Item key={t.id}><Anchor component={Link} to={`/follow-up/tasks/${t.id}`}>{t.title}</Anchor> · {t.status}{t.dueDate ? ` · due ${f.date(t.dueDate)}` : ''}{t.overdue ? ' · overdue' : ''}</List.Item>
        ))}
      </List>
      <NewTaskButton contactId={contactId} />
    </Section>
  );
}

function Giving({ contactId }: { contactId: number }) {
  const f = useFormat();
  const giving = useGiving(contactId, true);
  return (
    <Section title="Giving">
      <ErrorAlert error={giving.error} />
      {giving.data?.data.length === 0 && <Text c="dimmed">No gifts recorded.</Text>}
      <List listStyleType="none" spacing={4}>
        {giving.data?.data.map((g) => <List.Item key={g.id}>{f.date(g.date)} · {f.money(g.amount)} · {g.method}</List.Item>)}
      </List>
      {giving.data && giving.data.total > giving.data.data.length && <Text size="sm" c="dimmed">The latest {giving.data.data.length} of {giving.data.total} gifts.</Text>}
    </Section>
  );
}

function Timeline({ contactId }: { contactId: number }) {
  const f = useFormat();
  const timeline = useTimeline(contactId);
  return (
    <Section title="Timeline">
      <ErrorAlert error={timeline.error} />
      {timeline.isPending && <Loading />}
      {timeline.data?.data.length === 0 && <Text c="dimmed">Nothing has happened yet.</Text>}
      <List spacing={6} listStyleType="none">
        {timeline.data?.data.map((e, i) => (
          <List.Item key={`${e.at}-${i}`}>
            <Text size="sm"><Text span c="dimmed" size="sm">{f.dateTime(e.at)}</Text> · {e.summary}</Text>
          </List.Item>
        ))}
      </List>
    </Section>
  );
}
