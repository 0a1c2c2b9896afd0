import { Badge, Button, Checkbox, Group, Pagination, Paper, SegmentedControl, SimpleGrid, Stack, Table, Text, TextInput, Title, VisuallyHidden } from '@mantine/core';
import { useDebouncedValue } from '@mantine/hooks';
import { notifications } from '@mantine/notifications';
import { useState, type FormEvent } from 'react';
import { useSearchParams } from 'react-router';
import { ApiError, ErrorAlert, Loading, useFormat, useSignedIn } from '../../shared';
import { useRoles, useUserActions, useUsers, type UserItem } from './api';
import { AdminPage, Tag } from './sections';

/** Users and invitations: the accounts with their roles and status; invite, send again, disable and enable. */
export function UsersPage() {
  const f = useFormat();
  const { can, user: me } = useSignedIn();
  const [params, setParams] = useSearchParams();
  const q = params.get('q') ?? '';
  const status = (params.get('status') ?? '') as '' | 'Active' | 'Disabled';
  const page = Number(params.get('page') ?? 1);
  const [debounced] = useDebouncedValue(q, 250);
  const users = useUsers({ q: debounced.trim(), status: status || undefined, page });
  const actions = useUserActions();
  const [inviting, setInviting] = useState(false);
  const set = (next: Record<string, string>) => setParams({ ...Object.fromEntries(params), ...next }, { replace: true });
  const total = users.data?.total ?? 0;
  const writer = can('users:write');
  const actionError = actions.setStatus.error ?? actions.resend.error;

  const toggle = (u: UserItem) => {
    const next = u.status === 'Active' ? 'Disabled' : 'Active';
    actions.resend.reset();
    actions.setStatus.mutate({ id: u.id, status: next }, {
      onSuccess: () => notifications.show({ color: 'green', message: next === 'Disabled' ? `${u.username} is disabled and signed out` : `${u.username} can sign in again` }),
    });
  };
  const resend = (u: UserItem) => {
    actions.setStatus.reset();
    actions.resend.mutate(u.id, { onSuccess: (answer) => notifications.show({ color: 'green', message: answer.message }) });
  };

  return (
    <AdminPage title="Users" actions={writer && !inviting ? <Button onClick={() => setInviting(true)}>Invite someone</Button> : undefined}>
      {inviting && <InviteForm onDone={() => setInviting(false)} />}
      <Group align="end" wrap="wrap">
        <TextInput type="search" label="Search users" placeholder="Username or email" value={q} onChange={(e) => set({ q: e.currentTarget.value, page: '1' })} style={{ flex: 1, minWidth: 200 }} />
        <SegmentedControl aria-label="Status" value={status || 'all'} onChange={(v) => set({ status: v === 'all' ? '' : v, page: '1' })}
          data={[{ value: 'all', label: 'All' }, { value: 'Active', label: 'Active' }, { value: 'Disabled', label: 'Disabled' }]} />
      </Group>
      <ErrorAlert error={users.error} />
      <ErrorAlert error={actionError} title="Not done" />
      {users.isPending ? <Loading /> : users.data && (
        <>
          <Text size="sm" aria-live="polite">
            {total === 0 ? (q || status ? 'No user matches. Try another name or status.' : 'No users yet. Invite someone to give them an account.') : `${f.number(total)} ${total === 1 ? 'user' : 'users'}`}
          </Text>
          {users.data.data.length > 0 && (
            <Table.ScrollContainer minWidth={300}>
              <Table striped stickyHeader>
                <Table.Thead>
                  <Table.Tr>
                    <Table.Th>User</Table.Th>
                    <Table.Th visibleFrom="sm">Roles</Table.Th>
                    <Table.Th visibleFrom="sm">Status</Table.Th>
                    <Table.Th visibleFrom="sm">Last signed in</Table.Th>
                    {writer && <Table.Th><VisuallyHidden>Actions</VisuallyHidden></Table.Th>}
                  </Table.Tr>
                </Table.Thead>
                <Table.Tbody>
                  {users.data.data.map((u) => (
                    <Table.Tr key={u.id}>
                      <Table.Td>
                        <Text size="sm" fw={600}>{u.username}</Text>
                        {u.email && <Text size="xs" c="dimmed" style={{ overflowWrap: 'anywhere' }}>{u.email}</Text>}
                        <Text size="xs" hiddenFrom="sm">{u.roles.map((r) => r.name).join(', ') || 'No role'}</Text>
                        <Text size="xs" hiddenFrom="sm" fw={600}>Status: {u.status}{u.invitationPending ? ', invitation pending' : ''}</Text>
                      </Table.Td>
                      <Table.Td visibleFrom="sm">
                        <Group gap={4}>{u.roles.length ? u.roles.map((r) => <Badge key={r.id} variant="light" style={{ minWidth: 'max-content' }}>{r.name}</Badge>) : <Text size="sm" c="dimmed">No role</Text>}</Group>
                      </Table.Td>
                      <Table.Td visibleFrom="sm">
                        <Stack gap={2} align="flex-start">
                          <Tag color={u.status === 'Active' ? 'green' : 'gray'}>{u.status}</Tag>
                          {u.invitationPending && <Tag color="orange">Invitation pending</Tag>}
                        </Stack>
                      </Table.Td>
                      <Table.Td visibleFrom="sm">{u.lastLoginAt ? f.dateTime(u.lastLoginAt) : <Text size="sm" c="dimmed">Never</Text>}</Table.Td>
                      {writer && (
                        <Table.Td>
                          {u.id !== me.id && (
                            <Group gap={4} wrap="wrap">
                              {u.invitationPending && u.email && u.status === 'Active' && (
                                <Button size="compact-sm" variant="default" onClick={() => resend(u)} loading={actions.resend.isPending && actions.resend.variables === u.id}
                                  aria-label={`Send the invitation to ${u.username} again`}>Resend invitation</Button>
                              )}
                              <Button size="compact-sm" variant="default" color={u.status === 'Active' ? 'red' : undefined} onClick={() => toggle(u)}
                                loading={actions.setStatus.isPending && actions.setStatus.variables?.id === u.id}
                                aria-label={`${u.status === 'Active' ? 'Disable' : 'Enable'} ${u.username}`}>
                                {u.status === 'Active' ? 'Disable' : 'Enable'}
                              </Button>
                            </Group>
                          )}
                        </Table.Td>
                      )}
                    </Table.Tr>
                  ))}
                </Table.Tbody>
              </Table>
            </Table.ScrollContainer>
          )}
          {total > users.data.limit && (
            <Group justify="center">
              <Pagination total={Math.ceil(total / users.data.limit)} value={page} onChange={(n) => set({ page: String(n) })}
                getControlProps={(control) => ({ 'aria-label': `${control} page` })} getItemProps={(n) => ({ 'aria-label': `Page ${n}` })} />
            </Group>
          )}
        </>
      )}
    </AdminPage>
  );
}

/** Invite by email: the API creates the account and emails a link to choose a password. */
function InviteForm({ onDone }: { onDone(): void }) {
  const { can } = useSignedIn();
  const roles = useRoles(can('roles:read'));
  const { invite } = useUserActions();
  const [form, setForm] = useState({ firstName: '', lastName: '', username: '', email: '' });
  const [roleIds, setRoleIds] = useState<string[]>([]);
  const field = invite.error instanceof ApiError ? invite.error.field : undefined;
  const fieldError = (name: string) => (field === name && invite.error instanceof ApiError ? invite.error.fieldMessage : undefined);
  const input = (name: keyof typeof form, label: string, extra: Record<string, unknown> = {}) => (
    <TextInput label={label} required value={form[name]} error={fieldError(name)} {...extra}
      onChange={(e) => { const value = e.currentTarget.value; setForm((f) => ({ ...f, [name]: value })); }} />
  );
  const submit = (e: FormEvent) => {
    e.preventDefault();
    invite.mutate({ ...form, email: form.email.trim(), roleIds: roleIds.map(Number) }, {
      onSuccess: (user) => {
        notifications.show({ color: 'green', message: `Invitation sent to ${user.email}` });
        onDone();
      },
    });
  };
  return (
    <Paper withBorder p="md" component="form" onSubmit={submit} aria-labelledby="invite-title">
      <Stack>
        <Title order={2} size="h4" id="invite-title">Invite someone</Title>
        <Text size="sm">They get an email with a link to choose their password (it works for 7 days).</Text>
        <SimpleGrid cols={{ base: 1, sm: 2 }}>
          {input('firstName', 'First name')}
          {input('lastName', 'Last name')}
          {input('username', 'Username', { description: 'What they sign in with: no spaces, no @', autoComplete: 'off' })}
          {input('email', 'Email', { type: 'email' })}
        </SimpleGrid>
        {roles.data && (
          <Checkbox.Group label="Roles" description="What they may do; an account without a role sees only Home and Messages" value={roleIds} onChange={setRoleIds} error={fieldError('roleIds')}>
            <Group mt={6} gap="md">
              {roles.data.data.map((r) => <Checkbox key={r.id} value={String(r.id)} label={r.name} />)}
            </Group>
          </Checkbox.Group>
        )}
        {!field && <ErrorAlert error={invite.error} title="Not invited" />}
        <Group justify="flex-end">
          <Button variant="default" onClick={onDone}>Cancel</Button>
          <Button type="submit" loading={invite.isPending}>Send invitation</Button>
        </Group>
      </Stack>
    </Paper>
  );
}
