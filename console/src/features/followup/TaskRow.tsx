import { Anchor, Badge, Button, Group, Paper, Stack, Text } from '@mantine/core';
import { Link } from 'react-router';
import { ErrorAlert, useFormat } from '../../shared';
import { useUpdateTask, type Task } from './api';

const contact = (t: Task) => (t.contact ? `${t.contact.firstName} ${t.contact.lastName}` : undefined);

/** One task in a list: title (to its page), who it is about, due date, and "Done" in one tap. */
export function TaskRow({ task }: { task: Task }) {
  const f = useFormat();
  const update = useUpdateTask();
  const done = task.status === 'Done';
  return (
    <Paper withBorder p="sm" component="li">
      <Group justify="space-between" wrap="nowrap" align="flex-start">
        <Stack gap={2} style={{ minWidth: 0 }}>
          <Anchor component={Link} to={`/follow-up/tasks/${task.id}`} fw={600} td={done ? 'line-through' : undefined}>{task.title}</Anchor>
          <Group gap={6}>
            {contact(task) && <Text size="sm">{contact(task)}</Text>}
            {done && task.completedAt && <Text size="sm">Done {f.dateTime(task.completedAt)}</Text>}
            {!done && task.dueDate && <Text size="sm" c={task.overdue ? 'red.8' : undefined}>Due {f.date(task.dueDate)}</Text>}
            {task.priority !== 'Normal' && <Badge size="sm" variant="outline" color={task.priority === 'Low' ? 'gray.8' : 'red.9'}>{task.priority}</Badge>}
            {task.status === 'InProgress' && <Badge size="sm" variant="light">In progress</Badge>}
          </Group>
        </Stack>
        {done
          ? <Button size="xs" variant="default" style={{ flexShrink: 0 }} loading={update.isPending} onClick={() => update.mutate({ id: task.id, status: 'Open' })} aria-label={`Reopen “${task.title}”`}>Reopen</Button>
          : <Button size="xs" style={{ flexShrink: 0 }} loading={update.isPending} onClick={() => update.mutate({ id: task.id, status: 'Done' })} aria-label={`Mark “${task.title}” done`}>Done</Button>}
      </Group>
      <ErrorAlert error={update.error} title="Not changed" />
    </Paper>
  );
}
