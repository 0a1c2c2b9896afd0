import { Anchor, Badge, Card, Group, SimpleGrid, Stack, Text, Title } from '@mantine/core';
import { Link } from 'react-router';
import { ErrorAlert, Loading, Page } from '../../shared';
import { useCatalog, useTemplates } from './api';

/** Reports: the catalog of standard reports the user may run, and the leaders' report forms. */
export function ReportsHomePage() {
  const catalog = useCatalog();
  const templates = useTemplates();
  return (
    <Page title="Reports">
      <Stack gap="sm">
        <Title order={2} size="h3">Leaders' report forms</Title>
        {templates.isPending && <Loading label="Loading report forms" />}
        <ErrorAlert error={templates.error} title="The report forms could not be loaded" />
        {templates.data && templates.data.data.length === 0 && (
          <Text c="dimmed">No report forms yet. An administrator creates one (for example a weekly fellowship report) for a group category; its leaders then fill it in here.</Text>
        )}
        {templates.data && templates.data.data.length > 0 && (
          <SimpleGrid cols={{ base: 1, sm: 2, lg: 3 }}>
            {templates.data.data.map((t) => (
              <Card key={t.id} withBorder>
                <Stack gap={6}>
                  <Group justify="space-between" wrap="nowrap" align="flex-start">
                    <Title order={3} size="h4">{t.name}</Title>
                    <Badge variant="light">{t.frequency}</Badge>
                  </Group>
                  <Text size="sm" c="dimmed">{t.description ?? `For each ${t.groupCategory.name.toLowerCase()}`} · {t.fields.length} questions</Text>
                  <Group gap="md">
                    <Anchor component={Link} to={`forms/${t.id}/submit`}>Fill in {t.name}</Anchor>
                    <Anchor component={Link} to={`forms/${t.id}/rollup`}>Who has reported</Anchor>
                  </Group>
                </Stack>
              </Card>
            ))}
          </SimpleGrid>
        )}
      </Stack>
      <Stack gap="sm">
        <Title order={2} size="h3">Standard reports</Title>
        {catalog.isPending && <Loading label="Loading reports" />}
        <ErrorAlert error={catalog.error} title="The reports could not be loaded" />
        {catalog.data && catalog.data.data.length === 0 && (
          <Text c="dimmed">No report is open to you: each needs its area's read permission (attendance, giving, tasks …). Ask an administrator.</Text>
        )}
        {catalog.data && (
          <SimpleGrid cols={{ base: 1, sm: 2, lg: 3 }}>
            {catalog.data.data.map((r) => (
              <Card key={r.key} withBorder>
                <Stack gap={6}>
                  <Anchor component={Link} to={`run/${r.key}`} fw={600}>{r.name}</Anchor>
                  <Text size="sm" c="dimmed">{r.description}</Text>
                </Stack>
              </Card>
            ))}
          </SimpleGrid>
        )}
      </Stack>
    </Page>
  );
}
