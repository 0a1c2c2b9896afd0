import { Card, List, Text, Title } from '@mantine/core';
import { useFormat } from '../../shared';
import type { TaskDetail } from './api';

type Entry = TaskDetail['history'][number];

/** References change as ids: said in words, not numbers. */
const REFS: Record<string, string> = { assigneeUserId: 'changed the assignee', contactId: 'changed the person', groupId: 'changed the group', requestId: 'changed the request', description: 'changed the notes' };
const HIDDEN = new Set(['completedAt', 'updatedAt', 'cardId']);
const shown = (v: unknown, date: (d: string) => string) =>
  v === null || v === undefined || v === '' ? 'none' : typeof v === 'string' && /^\d{4}-\d\d-\d\d$/.test(v) ? date(v) : String(v);

function line(e: Entry, date: (d: string) => string): string {
  if (e.type === 'task.created') return 'created the task';
  if (e.field === null) return e.type.replace(/^task\./, '').replace(/_/g, ' ');
  if (REFS[e.field]) return REFS[e.field];
  const field = e.field === 'dueDate' ? 'due date' : e.field;
  return `changed the ${field}: ${shown(e.from, date)} → ${shown(e.to, date)}`;
}

/** What happened to the task, from the change feed, newest first. */
export function History({ task }: { task: TaskDetail }) {
  const f = useFormat();
  const entries = task.history.filter((e) => !e.field || !HIDDEN.has(e.field)).reverse().slice(0, 20);
  return (
    <Card withBorder component="section" aria-label="History">
      <Title order={2} size="h4" mb="xs">History</Title>
      {entries.length === 0 && <Text c="dimmed">Nothing recorded yet.</Text>}
      <List listStyleType="none" spacing={4}>
        {entries.map((e, i) => (
          <List.Item key={`${e.at}-${i}`}>
            <Text size="sm"><Text span c="dimmed" size="sm">{f.dateTime(e.at)}</Text> · {e.actor?.username ?? 'Parish'} {line(e, f.date)}</Text>
          </List.Item>
        ))}
      </List>
    </Card>
  );
}
