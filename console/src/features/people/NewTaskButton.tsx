import { Button, Group, Modal, NativeSelect, Stack, Textarea, TextInput } from '@mantine/core';
import { useDisclosure } from '@mantine/hooks';
import { notifications } from '@mantine/notifications';
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { useState } from 'react';
import { api, ApiError, ErrorAlert, unwrap, useSignedIn } from '../../shared';

const PRIORITIES = ['Low', 'Normal', 'High', 'Urgent'] as const;
type Priority = (typeof PRIORITIES)[number];

/** Accounts to assign a task to (users:read); without it, the task is the caller's own. */
function useAssignees(enabled: boolean) {
  return useQuery({
    queryKey: ['people', 'assignees'], enabled,
    queryFn: () => unwrap(api.GET('/api/users', { params: { query: { status: 'Active', limit: 100 } } })),
  });
}

/** "New task" on a person's page (tasks:write): a task about this person, shown in its Tasks section once saved. */
export function NewTaskButton({ contactId }: { contactId: number }) {
  const { can, user } = useSignedIn();
  const [opened, { open, close }] = useDisclosure(false);
  const client = useQueryClient();
  const users = useAssignees(opened && can('users:read'));
  const [title, setTitle] = useState('');
  const [dueDate, setDueDate] = useState('');
  const [assignee, setAssignee] = useState(String(user.id));
  const [priority, setPriority] = useState<Priority>('Normal');
  const [description, setDescription] = useState('');
  const create = useMutation({
    mutationFn: () => unwrap(api.POST('/api/tasks', {
      body: { title: title.trim(), contactId, dueDate: dueDate || null, assigneeUserId: assignee ? Number(assignee) : null, priority, description: description.trim() || null },
    })),
    onSuccess: async (task) => {
      notifications.show({ color: 'green', message: `Task “${task.title}” created` });
      close();
      setTitle(''); setDueDate(''); setDescription(''); setPriority('Normal');
      await Promise.all([client.invalidateQueries({ queryKey: ['people', 'tasks', contactId] }), client.invalidateQueries({ queryKey: ['followup'] })]);
    },
  });
  if (!can('tasks:write')) return null;
  const field = create.error instanceof ApiError ? create.error.field : undefined;
  const fieldError = (name: string) => (field === name ? (create.error as ApiError).fieldMessage : undefined);
  const options = can('users:read') && users.data
    ? [{ value: '', label: 'No one yet' }, ...users.data.data.map((u) => ({ value: String(u.id), label: u.id === user.id ? `${u.username} (me)` : u.username }))]
    : [{ value: String(user.id), label: `${user.username} (me)` }];

  return (
    <>
      <Button size="xs" variant="light" mt="xs" style={{ alignSelf: 'flex-start' }} onClick={open}>New task</Button>
      <Modal opened={opened} onClose={close} title="New task">
        <form onSubmit={(e) => { e.preventDefault(); create.mutate(); }}>
          <Stack>
            <TextInput label="Title" required data-autofocus maxLength={200} value={title} onChange={(e) => setTitle(e.currentTarget.value)}
              placeholder="Call to welcome them" error={fieldError('title')} />
            <TextInput label="Due date" type="date" value={dueDate} onChange={(e) => setDueDate(e.currentTarget.value)} error={fieldError('dueDate')} />
            <NativeSelect label="Assigned to" data={options} value={assignee} onChange={(e) => setAssignee(e.currentTarget.value)} error={fieldError('assigneeUserId')} />
            <NativeSelect label="Priority" data={[...PRIORITIES]} value={priority} onChange={(e) => setPriority(e.currentTarget.value as Priority)} />
            <Textarea label="Notes" autosize minRows={2} maxLength={5000} value={description} onChange={(e) => setDescription(e.currentTarget.value)} />
            {!field && <ErrorAlert error={create.error} title="The task was not created" />}
            <Group justify="flex-end">
              <Button variant="default" onClick={close}>Cancel</Button>
              <Button type="submit" loading={create.isPending} disabled={!title.trim()}>Create task</Button>
            </Group>
          </Stack>
        </form>
      </Modal>
    </>
  );
}
