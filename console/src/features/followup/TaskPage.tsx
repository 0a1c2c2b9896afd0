import { Anchor, Badge, Button, Card, Group, SimpleGrid, Stack, Text, Title } from '@mantine/core';
import { notifications } from '@mantine/notifications';
import type { ReactNode } from 'react';
import { Link, useParams } from 'react-router';
import { ErrorAlert, Loading, Page, useFormat, useSignedIn } from '../../shared';
import { Comments } from './Comments';
import { FollowupNav } from './FollowupNav';
import { History } from './History';
import { useTask, useUpdateTask, type TaskDetail, type TaskStatus } from './api';

const STATUS_LABEL: Record<TaskStatus, string> = { Open: 'Open', InProgress: 'In progress', Done: 'Done', Cancelled: 'Cancelled' };

/** The changes of status the API allows from each status (modules-contract §2), as buttons. */
const NEXT: Record<TaskStatus, { to: TaskStatus; label: string }[]> = {
  Open: [{ to: 'Done', label: 'Mark done' }, { to: 'InProgress', label: 'Start' }, { to: 'Cancelled', label: 'Cancel task' }],
  InProgress: [{ to: 'Done', label: 'Mark done' }, { to: 'Open', label: 'Back to open' }, { to: 'Cancelled', label: 'Cancel task' }],
  Done: [{ to: 'Open', label: 'Reopen' }],
  Cancelled: [{ to: 'Open', label: 'Reopen' }],
};

export function TaskPage() {
  const id = Number(useParams().id);
  const task = useTask(id);
  if (task.isPending) return <Page title="Task"><Loading /></Page>;
  if (task.isError) return <Page title="Task" actions={<FollowupNav />}><ErrorAlert error={task.error} /></Page>;
  return <TaskView task={task.data} />;
}

function Fact({ label, children }: { label: string; children: ReactNode }) {
  return (
    <div>
      <Text size="sm" c="dimmed">{label}</Text>
      <Text component="div">{children}</Text>
    </div>
  );
}

function TaskView({ task }: { task: TaskDetail }) {
  const f = useFormat();
  const { can, user } = useSignedIn();
  const update = useUpdateTask();
  const mayChange = can('tasks:write') || task.assignee?.id === user.id;
  const setStatus = (status: TaskStatus) =>
    update.mutate({ id: task.id, status }, { onSuccess: () => notifications.show({ color: 'green', message: `“${task.title}” is ${STATUS_LABEL[status].toLowerCase()}` }) });

  return (
    <Page title={task.title} actions={<FollowupNav />}>
      <Group gap="xs">
        <Badge variant="light">{STATUS_LABEL[task.status]}</Badge>
        {task.overdue && <Badge color="red.8">Overdue</Badge>}
        {task.priority !== 'Normal' && <Badge variant="outline" color={task.priority === 'Low' ? 'gray.8' : 'red.9'}>{task.priority} priority</Badge>}
        {task.confidential && <Badge variant="outline" color="grape.9">Confidential</Badge>}
      </Group>
      {mayChange && (
        <Group gap="xs" role="group" aria-label="Change the status">
          {NEXT[task.status].map((n, i) => (
            <Button key={n.to} size="sm" variant={i === 0 ? 'filled' : 'default'} loading={update.isPending && update.variables?.status === n.to} onClick={() => setStatus(n.to)}>{n.label}</Button>
          ))}
        </Group>
      )}
      <ErrorAlert error={update.error} title="The status was not changed" />
      <SimpleGrid cols={{ base: 1, md: 2 }}>
        <Card withBorder component="section" aria-label="Details">
          <Title order={2} size="h4" mb="xs">Details</Title>
          <Stack gap="xs">
            {task.description && <Text style={{ whiteSpace: 'pre-wrap' }}>{task.description}</Text>}
            <SimpleGrid cols={2} spacing="xs">
              <Fact label="About">
                {task.contact
                  ? (can('contacts:read')
                    ? <Anchor component={Link} to={`/people/${task.contact.id}`}>{task.contact.firstName} {task.contact.lastName}</Anchor>
                    : `${task.contact.firstName} ${task.contact.lastName}`)
                  : 'No one'}
              </Fact>
              <Fact label="Assigned to">{task.assignee?.username ?? 'No one'}</Fact>
              <Fact label="Due">{task.dueDate ? f.date(task.dueDate) : 'No date'}</Fact>
              <Fact label="Group">{task.group?.name ?? '—'}</Fact>
              <Fact label="Created">{f.dateTime(task.createdAt)}{task.createdBy ? ` by ${task.createdBy.username}` : ''}</Fact>
              {task.completedAt && <Fact label="Completed">{f.dateTime(task.completedAt)}</Fact>}
              {task.card && <Fact label="Board"><Anchor component={Link} to={`/follow-up/boards/${task.card.pipelineId}`}>Open the board</Anchor></Fact>}
            </SimpleGrid>
          </Stack>
        </Card>
        <Comments task={task} mayComment={mayChange} />
      </SimpleGrid>
      <History task={task} />
    </Page>
  );
}
