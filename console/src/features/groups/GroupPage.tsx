import { Anchor, Badge, Breadcrumbs, Card, Group, SimpleGrid, Text, Title } from '@mantine/core';
import { Link, useParams } from 'react-router';
import { ErrorAlert, Loading, Page, useFormat, useSignedIn } from '../../shared';
import { useGroup } from './api';
import { Members } from './Members';
import { Requests } from './Requests';
import { Sessions } from './Sessions';

/** A group's page: where it sits, its members, membership requests to handle, its sub-groups and its sessions. */
export function GroupPage() {
  const id = Number(useParams().id);
  const f = useFormat();
  const { can } = useSignedIn();
  const group = useGroup(id);
  if (group.isPending) return <Page title="Group"><Loading /></Page>;
  if (group.isError) return <Page title="Group"><ErrorAlert error={group.error} /></Page>;
  const g = group.data;
  const address = [g.address.street, g.address.city, g.address.country].filter(Boolean).join(', ');

  return (
    <Page title={g.name}>
      <Breadcrumbs>
        <Anchor component={Link} to="/groups">Groups</Anchor>
        {g.parent && <Anchor component={Link} to={`/groups/${g.parent.id}`}>{g.parent.name}</Anchor>}
        <Text>{g.name}</Text>
      </Breadcrumbs>
      <Group gap="xs">
        <Badge variant="light">{g.category.name}</Badge>
        <Badge variant="light" color="gray">{g.privacy}</Badge>
        <Text size="sm">{f.number(g.memberCount)} active {g.memberCount === 1 ? 'member' : 'members'}</Text>
      </Group>
      {(g.details || address) && <Text>{[g.details, address].filter(Boolean).join(' · ')}</Text>}
      <SimpleGrid cols={{ base: 1, md: 2 }}>
        <Card withBorder component="section" aria-label="Members">
          <Title order={2} size="h4" mb="xs">Members</Title>
          <Members group={g} />
        </Card>
        <Requests group={g} />
        {can('attendance:read') && (
          <Card withBorder component="section" aria-label="Sessions">
            <Title order={2} size="h4" mb="xs">Sessions</Title>
            <Sessions group={g} />
          </Card>
        )}
        {g.children.length > 0 && (
          <Card withBorder component="section" aria-label="Sub-groups">
            <Title order={2} size="h4" mb="xs">Sub-groups</Title>
            {g.children.map((c) => <Text key={c.id}><Anchor component={Link} to={`/groups/${c.id}`}>{c.name}</Anchor> · {c.category.name}</Text>)}
          </Card>
        )}
      </SimpleGrid>
    </Page>
  );
}
