import { Button, Card, Group, Pagination, SegmentedControl, Stack, Text } from '@mantine/core';
import { notifications } from '@mantine/notifications';
import { useState } from 'react';
import { ErrorAlert, errorMessage, Loading, Page, useFormat } from '../../shared';
import { useInbox, useInboxActions } from './api';

/** The signed-in user's notifications, newest first: mark one or all read. */
export function InboxPage() {
  const f = useFormat();
  const [unread, setUnread] = useState(false);
  const [page, setPage] = useState(1);
  const inbox = useInbox(unread, page);
  const { read, readAll } = useInboxActions();
  const failed = (err: unknown) => notifications.show({ color: 'red', title: 'Not marked read', message: errorMessage(err) });
  const pages = inbox.data ? Math.max(1, Math.ceil(inbox.data.total / inbox.data.limit)) : 1;
  const anyUnread = inbox.data?.data.some((n) => !n.readAt);

  return (
    <Page title="Inbox" actions={
      <Group>
        <SegmentedControl aria-label="Show" value={unread ? 'unread' : 'all'} onChange={(v) => { setUnread(v === 'unread'); setPage(1); }}
          data={[{ value: 'all', label: 'All' }, { value: 'unread', label: 'Unread' }]} />
        <Button variant="default" onClick={() => readAll.mutate(undefined, { onError: failed })} loading={readAll.isPending} disabled={!anyUnread}>Mark all read</Button>
      </Group>
    }>
      {inbox.isPending && <Loading label="Loading the inbox" />}
      <ErrorAlert error={inbox.error} title="The inbox could not be loaded" />
      {inbox.data && inbox.data.total === 0 && (
        <Text c="dimmed">{unread ? 'Nothing unread. Choose “All” to see earlier notifications.' : 'No notifications yet. Tasks assigned to you, membership requests and missing reports will show up here.'}</Text>
      )}
      {inbox.data && inbox.data.total > 0 && (
        <Stack gap="xs" component="ul" style={{ listStyle: 'none', padding: 0, margin: 0 }} aria-label="Notifications">
          {inbox.data.data.map((n) => (
            <Card key={n.id} withBorder component="li" padding="sm" aria-label={`${n.readAt ? '' : 'Unread: '}${n.title}`}
              style={n.readAt ? undefined : { borderInlineStart: '4px solid var(--mantine-primary-color-filled)' }}>
              <Group justify="space-between" align="flex-start" wrap="nowrap">
                <Stack gap={2} style={{ flex: 1, minWidth: 0 }}>
                  <Text fw={n.readAt ? 400 : 700}>{n.title}</Text>
                  {n.body && <Text size="sm" style={{ whiteSpace: 'pre-wrap' }}>{n.body}</Text>}
                  <Text size="xs" c="dimmed">{f.dateTime(n.createdAt)}{n.readAt ? ` · read ${f.dateTime(n.readAt)}` : ''}</Text>
                </Stack>
                {!n.readAt && (
                  <Button size="xs" variant="subtle" style={{ flexShrink: 0 }} onClick={() => read.mutate(n.id, { onError: failed })} aria-label={`Mark “${n.title}” read`}>Mark read</Button>
                )}
              </Group>
            </Card>
          ))}
        </Stack>
      )}
      {pages > 1 && <Pagination total={pages} value={page} onChange={setPage} getControlProps={(c) => ({ 'aria-label': `${c} page` })} />}
    </Page>
  );
}
