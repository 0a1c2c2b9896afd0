import { Anchor, Badge, Card, Group, SimpleGrid, Stack, Text } from '@mantine/core';
import { Link } from 'react-router';
import { ErrorAlert, Loading, Page } from '../../shared';
import { FollowupNav } from './FollowupNav';
import { usePipelines } from './api';

/** The pipelines, each opening its board. */
export function BoardsPage() {
  const pipelines = usePipelines();
  const list = pipelines.data?.data ?? [];
  return (
    <Page title="Follow-up boards" actions={<FollowupNav />}>
      <ErrorAlert error={pipelines.error} />
      {pipelines.isPending && <Loading />}
      {pipelines.data && list.length === 0 && (
        <Text c="dimmed">No pipelines yet. An administrator sets them up (for example “New people”, for first-time guests) through the API.</Text>
      )}
      <SimpleGrid cols={{ base: 1, sm: 2, lg: 3 }}>
        {list.map((p) => (
          <Card key={p.id} withBorder component="section" aria-label={p.name}>
            <Stack gap={6}>
              <Group justify="space-between" wrap="nowrap">
                <Anchor component={Link} to={`/follow-up/boards/${p.id}`} fw={700} size="lg">{p.name}</Anchor>
                {!p.isActive && <Badge color="gray" variant="light">Inactive</Badge>}
              </Group>
              {p.description && <Text size="sm">{p.description}</Text>}
              <Text size="sm" c="dimmed">{p.steps.length} {p.steps.length === 1 ? 'step' : 'steps'}: {p.steps.map((s) => s.name).join(' → ')}</Text>
            </Stack>
          </Card>
        ))}
      </SimpleGrid>
    </Page>
  );
}
