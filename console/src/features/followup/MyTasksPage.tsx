import { Badge, Group, Stack, Text, Title } from '@mantine/core';
import { ErrorAlert, Loading, Page, useSignedIn } from '../../shared';
import { FollowupNav } from './FollowupNav';
import { TaskRow } from './TaskRow';
import { useMyTasks, type Task } from './api';
import { calendar, dueGroup, type Due } from './dates';

const GROUPS: { key: Due; title: string }[] = [
  { key: 'overdue', title: 'Overdue' },
  { key: 'today', title: 'Due today' },
  { key: 'week', title: 'Due this week' },
  { key: 'later', title: 'Later' },
];

function TaskGroup({ title, tasks, color }: { title: string; tasks: Task[]; color?: string }) {
  if (tasks.length === 0) return null;
  return (
    <Stack gap="xs" component="section" aria-label={title}>
      <Group gap="xs">
        <Title order={2} size="h4">{title}</Title>
        <Badge variant="light" color={color}>{tasks.length}</Badge>
      </Group>
      <Stack gap="xs" component="ul" m={0} p={0} style={{ listStyle: 'none' }}>
        {tasks.map((t) => <TaskRow key={t.id} task={t} />)}
      </Stack>
    </Stack>
  );
}

/** The tasks assigned to the signed-in user: overdue, due today, this week, later, and the latest done. */
export function MyTasksPage() {
  const { tenant } = useSignedIn();
  const tasks = useMyTasks();
  const days = calendar(tenant.timeZone);
  const by = (key: Due) => tasks.data?.active.filter((t) => dueGroup(t, days) === key) ?? [];

  return (
    <Page title="My tasks" actions={<FollowupNav />}>
      <ErrorAlert error={tasks.error} />
      {tasks.isPending && <Loading />}
      {tasks.data && (
        <>
          <Text size="sm" aria-live="polite">
            {tasks.data.active.length === 0
              ? 'Nothing to do: no open task is assigned to you. Tasks appear here when someone assigns you one, or when a card you follow moves on a board.'
              : `${tasks.data.active.length} open ${tasks.data.active.length === 1 ? 'task' : 'tasks'}`}
          </Text>
          {GROUPS.map((g) => <TaskGroup key={g.key} title={g.title} tasks={by(g.key)} color={g.key === 'overdue' ? 'red' : undefined} />)}
          <TaskGroup title="Done" tasks={tasks.data.done} color="gray" />
          {tasks.data.doneTotal > tasks.data.done.length && <Text size="sm" c="dimmed">The latest {tasks.data.done.length} of {tasks.data.doneTotal} done tasks.</Text>}
        </>
      )}
    </Page>
  );
}
