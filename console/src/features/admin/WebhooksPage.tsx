import { Alert, Anchor, Button, Code, Group, MultiSelect, Pagination, Paper, Stack, Switch, Table, Text, TextInput, Title } from '@mantine/core';
import { notifications } from '@mantine/notifications';
import { useState, type FormEvent } from 'react';
import { Link, useParams } from 'react-router';
import { ApiError, ErrorAlert, Loading, useFormat } from '../../shared';
import { useDeliveries, useWebhook, useWebhookActions, useWebhookEvents, useWebhooks } from './api';
import { AdminPage, Tag } from './sections';

const STATUS_COLOR: Record<string, string> = { Succeeded: 'green', Failed: 'red', Pending: 'orange' };

/** Webhooks: the subscriptions, and a new one (its secret shown once). */
export function WebhooksPage() {
  const f = useFormat();
  const webhooks = useWebhooks();
  const [creating, setCreating] = useState(false);
  const [secret, setSecret] = useState<{ url: string; secret: string }>();
  return (
    <AdminPage title="Webhooks" actions={!creating ? <Button onClick={() => { setCreating(true); setSecret(undefined); }}>New webhook</Button> : undefined}>
      {creating && <NewWebhookForm onDone={(made) => { setCreating(false); if (made) setSecret(made); }} />}
      {secret && (
        <Alert color="green.9" title="Webhook created: copy its secret now">
          <Text size="sm">Deliveries to {secret.url} are signed with this secret; it is shown only once.</Text>
          <Code block mt="xs" style={{ wordBreak: 'break-all', whiteSpace: 'pre-wrap' }}>{secret.secret}</Code>
        </Alert>
      )}
      <ErrorAlert error={webhooks.error} />
      {webhooks.isPending ? <Loading /> : webhooks.data && (
        webhooks.data.data.length === 0 ? (
          <Text size="sm">No webhooks yet. Add one with “New webhook” to send changes (new people, gifts, attendance …) to another system.</Text>
        ) : (
          <Table.ScrollContainer minWidth={300}>
            <Table striped stickyHeader>
              <Table.Thead>
                <Table.Tr>
                  <Table.Th>Address</Table.Th>
                  <Table.Th visibleFrom="sm">Changes</Table.Th>
                  <Table.Th>Status</Table.Th>
                  <Table.Th visibleFrom="sm">Created</Table.Th>
                </Table.Tr>
              </Table.Thead>
              <Table.Tbody>
                {webhooks.data.data.map((w) => (
                  <Table.Tr key={w.id}>
                    <Table.Td style={{ wordBreak: 'break-all' }}>
                      <Anchor component={Link} to={`/admin/webhooks/${w.id}`}>{w.url}</Anchor>
                      {w.description && <Text size="xs" c="dimmed">{w.description}</Text>}
                    </Table.Td>
                    <Table.Td visibleFrom="sm"><Text size="sm" lineClamp={2}>{w.events.includes('*') ? 'Every change' : w.events.join(', ')}</Text></Table.Td>
                    <Table.Td><Tag color={w.isActive ? 'green' : 'gray'}>{w.isActive ? 'Active' : 'Paused'}</Tag></Table.Td>
                    <Table.Td visibleFrom="sm">{f.dateTime(w.createdAt)}</Table.Td>
                  </Table.Tr>
                ))}
              </Table.Tbody>
            </Table>
          </Table.ScrollContainer>
        )
      )}
    </AdminPage>
  );
}

function NewWebhookForm({ onDone }: { onDone(made?: { url: string; secret: string }): void }) {
  const events = useWebhookEvents();
  const { create } = useWebhookActions();
  const [url, setUrl] = useState('');
  const [description, setDescription] = useState('');
  const [all, setAll] = useState(true);
  const [chosen, setChosen] = useState<string[]>([]);
  const field = create.error instanceof ApiError ? create.error.field : undefined;
  const fieldError = (name: string) => (field === name && create.error instanceof ApiError ? create.error.fieldMessage : undefined);
  const submit = (e: FormEvent) => {
    e.preventDefault();
    create.mutate({ url: url.trim(), description: description || undefined, events: all ? ['*'] : chosen, isActive: true } as never, {
      onSuccess: (made) => onDone({ url: made.url, secret: made.secret }),
    });
  };
  return (
    <Paper withBorder p="md" component="form" onSubmit={submit} aria-labelledby="new-webhook-title">
      <Stack>
        <Title order={2} size="h4" id="new-webhook-title">New webhook</Title>
        <TextInput label="Address (URL)" required type="url" placeholder="https://example.org/parish-hook" value={url} onChange={(e) => setUrl(e.currentTarget.value)} error={fieldError('url')} />
        <TextInput label="Description" value={description} onChange={(e) => setDescription(e.currentTarget.value)} error={fieldError('description')} />
        <Switch label="Send every change" checked={all} onChange={(e) => setAll(e.currentTarget.checked)} />
        {!all && (
          <MultiSelect label="Changes to send" searchable required data={(events.data?.data ?? []).map((ev) => ({ value: ev.type, label: ev.type }))}
            value={chosen} onChange={setChosen} error={fieldError('events')} />
        )}
        {!field && <ErrorAlert error={create.error} title="Not created" />}
        <Group justify="flex-end">
          <Button variant="default" onClick={() => onDone()}>Cancel</Button>
          <Button type="submit" loading={create.isPending}>Create webhook</Button>
        </Group>
      </Stack>
    </Paper>
  );
}

/** One webhook: its deliveries (status, response code, time), a test ping, pause and resume. */
export function WebhookPage() {
  const id = Number(useParams().id);
  const f = useFormat();
  const [page, setPage] = useState(1);
  const webhook = useWebhook(id);
  const deliveries = useDeliveries(id, page);
  const actions = useWebhookActions(id);
  const w = webhook.data;
  const ping = () => actions.ping.mutate(undefined, { onSuccess: () => { setPage(1); notifications.show({ color: 'green', message: 'Test ping queued: its delivery shows below' }); } });
  const setActive = (isActive: boolean) =>
    actions.update.mutate({ url: w!.url, events: w!.events, description: w!.description, isActive } as never, {
      onSuccess: () => notifications.show({ color: 'green', message: isActive ? 'Webhook resumed' : 'Webhook paused: changes are not sent' }),
    });
  const total = deliveries.data?.total ?? 0;

  return (
    <AdminPage title="Webhook" actions={w && (
      <Group gap="xs">
        <Button onClick={ping} loading={actions.ping.isPending}>Send test ping</Button>
        <Button variant="default" onClick={() => setActive(!w.isActive)} loading={actions.update.isPending}>{w.isActive ? 'Pause' : 'Resume'}</Button>
      </Group>
    )}>
      <Anchor component={Link} to="/admin/webhooks" size="sm">← All webhooks</Anchor>
      <ErrorAlert error={webhook.error} />
      <ErrorAlert error={actions.ping.error ?? actions.update.error ?? actions.redeliver.error} title="Not done" />
      {w && (
        <Paper withBorder p="md">
          <Stack gap={4}>
            <Text fw={700} style={{ wordBreak: 'break-all' }}>{w.url}</Text>
            {w.description && <Text size="sm">{w.description}</Text>}
            <Text size="sm">Sends: {w.events.includes('*') ? 'every change' : w.events.join(', ')}</Text>
            <Group gap="xs"><Tag color={w.isActive ? 'green' : 'gray'}>{w.isActive ? 'Active' : 'Paused'}</Tag><Text size="xs" c="dimmed">created {f.dateTime(w.createdAt)}</Text></Group>
          </Stack>
        </Paper>
      )}
      <Title order={2} size="h4">Deliveries</Title>
      <ErrorAlert error={deliveries.error} />
      {deliveries.isPending ? <Loading /> : deliveries.data && (
        <>
          <Text size="sm" aria-live="polite">{total === 0 ? 'Nothing sent yet. “Send test ping” sends a webhook.test change to check the address.' : `${f.number(total)} ${total === 1 ? 'delivery' : 'deliveries'}, newest first`}</Text>
          {deliveries.data.data.length > 0 && (
            <Table.ScrollContainer minWidth={300}>
              <Table striped stickyHeader>
                <Table.Thead>
                  <Table.Tr>
                    <Table.Th>Change</Table.Th>
                    <Table.Th>Status</Table.Th>
                    <Table.Th>Response</Table.Th>
                    <Table.Th visibleFrom="sm">Time</Table.Th>
                    <Table.Th visibleFrom="sm">Attempts</Table.Th>
                  </Table.Tr>
                </Table.Thead>
                <Table.Tbody>
                  {deliveries.data.data.map((d) => (
                    <Table.Tr key={d.id}>
                      <Table.Td>
                        <Code>{d.type}</Code>
                        <Text size="xs" hiddenFrom="sm">{d.deliveredAt ? f.dateTime(d.deliveredAt) : d.status === 'Pending' && d.nextAttemptAt ? `next try ${f.dateTime(d.nextAttemptAt)}` : ''}</Text>
                      </Table.Td>
                      <Table.Td>
                        <Stack gap={2} align="flex-start">
                          <Tag color={STATUS_COLOR[d.status] ?? 'gray'}>{d.status}</Tag>
                          {d.status === 'Failed' && (
                            <Button size="compact-xs" variant="default" onClick={() => actions.redeliver.mutate(d.id)} aria-label={`Send delivery ${d.id} again`}>Send again</Button>
                          )}
                        </Stack>
                      </Table.Td>
                      <Table.Td>
                        <Text size="sm">{d.lastStatusCode ?? '—'}</Text>
                        {d.lastError && <Text size="xs" c="dimmed" style={{ wordBreak: 'break-word' }}>{d.lastError}</Text>}
                      </Table.Td>
                      <Table.Td style={{ whiteSpace: 'nowrap' }} visibleFrom="sm">
                        {d.deliveredAt ? f.dateTime(d.deliveredAt) : d.nextAttemptAt && d.status === 'Pending' ? <Text size="sm">next try {f.dateTime(d.nextAttemptAt)}</Text> : '—'}
                      </Table.Td>
                      <Table.Td visibleFrom="sm">{d.attempts}</Table.Td>
                    </Table.Tr>
                  ))}
                </Table.Tbody>
              </Table>
            </Table.ScrollContainer>
          )}
          {total > deliveries.data.limit && (
            <Group justify="center">
              <Pagination total={Math.ceil(total / deliveries.data.limit)} value={page} onChange={setPage}
                getControlProps={(control) => ({ 'aria-label': `${control} page` })} getItemProps={(n) => ({ 'aria-label': `Page ${n}` })} />
            </Group>
          )}
        </>
      )}
    </AdminPage>
  );
}
