import { Anchor, Badge, Button, Card, Group, Stack, Text, Title } from '@mantine/core';
import { notifications } from '@mantine/notifications';
import { Link } from 'react-router';
import { ApiError, ErrorAlert, Loading, useFormat, useSignedIn } from '../../shared';
import { useHandleRequest, useMembershipRequests, type GroupDetail, type MembershipRequest } from './api';

/**
 * Membership requests waiting on the group's leaders: approve (the person joins as a Member) or
 * reject. Shown to holders of groups:write; the API lists only the requests of groups they manage.
 */
export function Requests({ group }: { group: GroupDetail }) {
  const { can } = useSignedIn();
  const requests = useMembershipRequests(group.id, can('groups:write'));
  if (!can('groups:write')) return null;
  if (requests.error instanceof ApiError && (requests.error.statusCode === 403 || requests.error.statusCode === 404)) return null;
  const pending = requests.data?.data.filter((r) => r.status === 'Pending') ?? [];
  return (
    <Card withBorder component="section" aria-label="Membership requests">
      <Group gap="xs" mb="xs">
        <Title order={2} size="h4">Membership requests</Title>
        {pending.length > 0 && <Badge variant="filled">{pending.length} waiting</Badge>}
      </Group>
      <Stack gap="sm">
        <ErrorAlert error={requests.error} />
        {requests.isPending ? <Loading label="Loading the requests" /> : requests.data && (
          <>
            {pending.length === 0
              ? <Text c="dimmed">No requests waiting. People who ask to join {group.name} appear here for you to approve.</Text>
              : pending.map((r) => <RequestRow key={r.id} request={r} groupName={group.name} />)}
          </>
        )}
      </Stack>
    </Card>
  );
}

function RequestRow({ request, groupName }: { request: MembershipRequest; groupName: string }) {
  const { can } = useSignedIn();
  const f = useFormat();
  const handle = useHandleRequest();
  const name = `${request.contact.firstName} ${request.contact.lastName}`;
  // mutateAsync: the row leaves the list once handled, and the toast still shows.
  const decide = (decision: 'approve' | 'reject') => handle.mutateAsync({ id: request.id, decision }).then(
    () => notifications.show({ color: 'green', message: decision === 'approve' ? `${name} joined ${groupName}` : `${name}'s request was rejected` }),
    () => undefined,
  );
  return (
    <Stack gap={4}>
      <Group justify="space-between" gap="xs" wrap="wrap">
        <div>
          <Text fw={500}>{can('contacts:read') ? <Anchor component={Link} to={`/people/${request.contactId}`}>{name}</Anchor> : name}</Text>
          <Text size="xs" c="dimmed">Asked {f.dateTime(request.createdAt)}</Text>
        </div>
        <Group gap="xs">
          <Button size="xs" onClick={() => decide('approve')} loading={handle.isPending && handle.variables?.decision === 'approve'} aria-label={`Approve ${name}`}>Approve</Button>
          <Button size="xs" variant="default" onClick={() => decide('reject')} loading={handle.isPending && handle.variables?.decision === 'reject'} aria-label={`Reject ${name}`}>Reject</Button>
        </Group>
      </Group>
      {handle.error && <ErrorAlert error={handle.error} title={`${name}'s request was not handled`} />}
    </Stack>
  );
}
