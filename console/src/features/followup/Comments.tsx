import { Button, Card, List, Stack, Text, Textarea, Title } from '@mantine/core';
import { useState } from 'react';
import { ErrorAlert, useFormat } from '../../shared';
import { useAddComment, type TaskDetail } from './api';

/** A task's comments, oldest first, and a field to add one (kept when the API refuses it). */
export function Comments({ task, mayComment }: { task: TaskDetail; mayComment: boolean }) {
  const f = useFormat();
  const add = useAddComment(task.id);
  const [body, setBody] = useState('');
  const submit = (e: React.FormEvent) => {
    e.preventDefault();
    if (body.trim()) add.mutate(body.trim(), { onSuccess: () => setBody('') });
  };

  return (
    <Card withBorder component="section" aria-label="Comments">
      <Title order={2} size="h4" mb="xs">Comments</Title>
      <Stack gap="sm">
        {task.comments.length === 0 && <Text c="dimmed">No comments yet.{mayComment ? ' Note what happened: a call, a visit, what to pray about.' : ''}</Text>}
        <List listStyleType="none" spacing="sm">
          {task.comments.map((c) => (
            <List.Item key={c.id}>
              <Text size="sm" c="dimmed">{c.author?.username ?? 'Someone'} · {f.dateTime(c.createdAt)}</Text>
              <Text style={{ whiteSpace: 'pre-wrap' }}>{c.body}</Text>
            </List.Item>
          ))}
        </List>
        {mayComment && (
          <form onSubmit={submit}>
            <Stack gap="xs">
              <Textarea label="Add a comment" autosize minRows={2} maxLength={5000} value={body} onChange={(e) => setBody(e.currentTarget.value)} />
              <ErrorAlert error={add.error} title="The comment was not saved" />
              <Button type="submit" loading={add.isPending} disabled={!body.trim()} style={{ alignSelf: 'flex-start' }}>Add comment</Button>
            </Stack>
          </form>
        )}
      </Stack>
    </Card>
  );
}
