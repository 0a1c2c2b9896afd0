import { Button, Checkbox, Group, Paper, Stack, Table, Text, TextInput, Textarea, Title, Tooltip } from '@mantine/core';
import { notifications } from '@mantine/notifications';
import { useState, type FormEvent } from 'react';
import { ApiError, ErrorAlert, Loading, useSignedIn } from '../../shared';
import { usePermissions, useRoleActions, useRoles, type Role } from './api';
import { AdminPage, Tag } from './sections';

/** The permission column stays in view while the roles scroll sideways (a phone shows two or three roles at a time). */
const STICKY = { position: 'sticky', left: 0, zIndex: 1, background: 'var(--mantine-color-body)' } as const;

/** Roles as a permission matrix: a row per permission, a column per role; built-in roles are read-only. */
export function RolesPage() {
  const { can } = useSignedIn();
  const roles = useRoles();
  const permissions = usePermissions();
  const { setPermissions } = useRoleActions();
  const [creating, setCreating] = useState(false);
  const writer = can('roles:write');

  const toggle = (role: Role, key: string, on: boolean) => {
    const next = on ? [...role.permissions, key] : role.permissions.filter((p) => p !== key);
    setPermissions.mutate({ id: role.id, permissions: next }, {
      onSuccess: () => notifications.show({ color: 'green', message: `${role.name} ${on ? 'may now' : 'no longer may'} use ${key}` }),
    });
  };

  return (
    <AdminPage title="Roles" actions={writer && !creating ? <Button onClick={() => setCreating(true)}>New role</Button> : undefined}>
      {creating && <NewRoleForm onDone={() => setCreating(false)} />}
      <ErrorAlert error={roles.error ?? permissions.error} />
      <ErrorAlert error={setPermissions.error} title="Not saved" />
      {roles.isPending || permissions.isPending ? <Loading /> : roles.data && permissions.data && (
        <>
          <Text size="sm">
            {writer ? 'Tick a box to let a role use a permission; it is saved at once and applies on each user’s next request. ' : ''}
            Built-in roles (marked) cannot be changed.
          </Text>
          <Table.ScrollContainer minWidth={160 + roles.data.data.length * 96}>
            <Table striped stickyHeader withColumnBorders>
              <Table.Thead>
                <Table.Tr>
                  <Table.Th scope="col" style={STICKY}>Permission</Table.Th>
                  {roles.data.data.map((r) => (
                    <Table.Th key={r.id} scope="col" ta="center">
                      <Stack gap={2} align="center">
                        <Text size="sm" fw={700}>{r.name}</Text>
                        <Text size="xs" c="dimmed">{r.userCount} {r.userCount === 1 ? 'user' : 'users'}</Text>
                        {r.isSystem && <Tag size="xs">Built-in</Tag>}
                      </Stack>
                    </Table.Th>
                  ))}
                </Table.Tr>
              </Table.Thead>
              <Table.Tbody>
                {permissions.data.data.map((p) => (
                  <Table.Tr key={p.key}>
                    <Table.Th scope="row" fw={400} style={STICKY}>
                      <Text size="sm" fw={600}>{p.key}</Text>
                      <Text size="xs" c="dimmed" visibleFrom="sm">{p.description}</Text>
                    </Table.Th>
                    {roles.data.data.map((r) => {
                      // The change being saved shows at once.
                      const pending = setPermissions.isPending && setPermissions.variables?.id === r.id ? setPermissions.variables.permissions : undefined;
                      const held = (pending ?? r.permissions).includes(p.key);
                      const box = (
                        <Checkbox aria-label={`${r.name}: ${p.key}`} checked={held} readOnly={!writer || r.isSystem} disabled={!writer || r.isSystem || setPermissions.isPending}
                          onChange={(e) => toggle(r, p.key, e.currentTarget.checked)} styles={{ body: { justifyContent: 'center' } }} />
                      );
                      return (
                        <Table.Td key={r.id} ta="center">
                          {r.isSystem && writer ? <Tooltip label="Built-in roles cannot be changed"><span>{box}</span></Tooltip> : box}
                        </Table.Td>
                      );
                    })}
                  </Table.Tr>
                ))}
              </Table.Tbody>
            </Table>
          </Table.ScrollContainer>
        </>
      )}
    </AdminPage>
  );
}

function NewRoleForm({ onDone }: { onDone(): void }) {
  const { create } = useRoleActions();
  const [name, setName] = useState('');
  const [description, setDescription] = useState('');
  const field = create.error instanceof ApiError ? create.error.field : undefined;
  const submit = (e: FormEvent) => {
    e.preventDefault();
    create.mutate({ name, description: description || null, permissions: [] }, {
      onSuccess: (role) => {
        notifications.show({ color: 'green', message: `Role ${role.name} created: tick its permissions in the table` });
        onDone();
      },
    });
  };
  const fieldError = (f: string) => (field === f && create.error instanceof ApiError ? create.error.fieldMessage : undefined);
  return (
    <Paper withBorder p="md" component="form" onSubmit={submit} aria-labelledby="new-role-title">
      <Stack>
        <Title order={2} size="h4" id="new-role-title">New role</Title>
        <TextInput label="Name" required value={name} onChange={(e) => setName(e.currentTarget.value)} error={fieldError('name')} />
        <Textarea label="Description" value={description} onChange={(e) => setDescription(e.currentTarget.value)} error={fieldError('description')} autosize minRows={2} />
        {!field && <ErrorAlert error={create.error} title="Not created" />}
        <Group justify="flex-end">
          <Button variant="default" onClick={onDone}>Cancel</Button>
          <Button type="submit" loading={create.isPending}>Create role</Button>
        </Group>
      </Stack>
    </Paper>
  );
}
