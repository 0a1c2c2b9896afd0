import { Anchor, Badge, Pagination, Table, Text } from '@mantine/core';
import { useState } from 'react';
import { Link } from 'react-router';
import { ErrorAlert, Loading, Page, useFormat } from '../../shared';
import { useSentMessages, type SentMessage } from './api';

const STATUS: Record<SentMessage['status'], { label: string; color: string; variant: string; hint: string }> = {
  Queued: { label: 'Queued', color: 'gray', variant: 'light', hint: 'Waiting to be sent' },
  Sending: { label: 'Sending', color: 'gray', variant: 'light', hint: 'Being sent now' },
  Sent: { label: 'Sent', color: 'blue', variant: 'light', hint: 'Handed to the mail server' },
  Logged: { label: 'Logged', color: 'gray', variant: 'outline', hint: 'No mail server is set up: the emails were written to the server log, not sent' },
  Failed: { label: 'Failed', color: 'red.9', variant: 'filled', hint: 'No email could be delivered' },
};

/** Messages sent from this church, newest first, with their status and counts. */
export function SentPage() {
  const f = useFormat();
  const [page, setPage] = useState(1);
  const sent = useSentMessages(page);
  const pages = sent.data ? Math.max(1, Math.ceil(sent.data.total / sent.data.limit)) : 1;
  return (
    <Page title="Sent messages" actions={<Anchor component={Link} to="/messages/compose">Write a message</Anchor>}>
      {sent.isPending && <Loading label="Loading the messages" />}
      <ErrorAlert error={sent.error} title="The messages could not be loaded" />
      {sent.data && sent.data.total === 0 && <Text c="dimmed">No messages yet. Choose “Compose” to write one to a group, a saved list or chosen people.</Text>}
      {sent.data && sent.data.total > 0 && (
        <>
          <Text size="sm" c="dimmed">{f.number(sent.data.total)} message{sent.data.total === 1 ? '' : 's'}</Text>
          <Table.ScrollContainer minWidth={560}>
            <Table striped stickyHeader aria-label="Sent messages">
              <Table.Thead>
                <Table.Tr>
                  <Table.Th>Subject</Table.Th><Table.Th>Queued</Table.Th><Table.Th>Status</Table.Th>
                  <Table.Th ta="right">Recipients</Table.Th><Table.Th ta="right">Sent</Table.Th><Table.Th ta="right">Failed</Table.Th><Table.Th>Skipped</Table.Th>
                </Table.Tr>
              </Table.Thead>
              <Table.Tbody>
                {sent.data.data.map((m) => {
                  const s = STATUS[m.status];
                  return (
                    <Table.Tr key={m.id}>
                      <Table.Td>{m.subject}</Table.Td>
                      <Table.Td>{f.dateTime(m.createdAt)}</Table.Td>
                      <Table.Td><Badge color={s.color} variant={s.variant} title={s.hint}>{s.label}</Badge></Table.Td>
                      <Table.Td ta="right">{f.number(m.recipientCount)}</Table.Td>
                      <Table.Td ta="right">{f.number(m.sent)}</Table.Td>
                      <Table.Td ta="right">{f.number(m.failed)}</Table.Td>
                      <Table.Td>{skipped(m)}</Table.Td>
                    </Table.Tr>
                  );
                })}
              </Table.Tbody>
            </Table>
          </Table.ScrollContainer>
          {sent.data.data.some((m) => m.status === 'Logged') && (
            <Text size="sm" c="dimmed">Logged: this server has no mail server set up, so the emails were written to its log instead of being sent.</Text>
          )}
        </>
      )}
      {pages > 1 && <Pagination total={pages} value={page} onChange={setPage} />}
    </Page>
  );
}

function skipped(m: SentMessage) {
  const parts = [m.skipped.noEmail ? `${m.skipped.noEmail} without email` : '', m.skipped.optedOut ? `${m.skipped.optedOut} opted out` : ''].filter(Boolean);
  return parts.length ? parts.join(', ') : 'None';
}
