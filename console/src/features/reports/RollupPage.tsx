import { Anchor, Badge, Button, Card, Group, SimpleGrid, Stack, Table, Text, TextInput, Title } from '@mantine/core';
import { useState, type FormEvent } from 'react';
import { Link, useParams } from 'react-router';
import { ErrorAlert, GroupPicker, Loading, Page, useFormat, type PickedGroup } from '../../shared';
import { useRollup, useSubmissions, useTemplate } from './api';

type Scope = { groupId?: number; from?: string; to?: string };

/** A report form's rollup: per week (or month), who has reported, who has not, and the sums of the numbers. */
export function RollupPage() {
  const id = Number(useParams().id);
  const f = useFormat();
  const template = useTemplate(id);
  const [draft, setDraft] = useState<{ group: PickedGroup | null; from: string; to: string }>({ group: null, from: '', to: '' });
  const [scope, setScope] = useState<Scope>({});
  const rollup = useRollup(id, scope);
  const submissions = useSubmissions(id, scope);
  const title = template.data ? `${template.data.name}: who has reported` : 'Who has reported';

  const apply = (e: FormEvent) => {
    e.preventDefault();
    setScope({ ...(draft.group ? { groupId: draft.group.id } : {}), ...(draft.from ? { from: draft.from } : {}), ...(draft.to ? { to: draft.to } : {}) });
  };
  const numeric = (template.data?.fields ?? []).filter((fl) => fl.type === 'number');

  return (
    <Page title={title} actions={<Group gap="md"><Anchor component={Link} to={`/reports/forms/${id}/submit`}>Fill in the form</Anchor><Anchor component={Link} to="/reports">All reports</Anchor></Group>}>
      <ErrorAlert error={template.error} />
      <Card withBorder component="form" onSubmit={apply} aria-label="Scope and window">
        <SimpleGrid cols={{ base: 1, sm: 3 }}>
          <GroupPicker label="Group" placeholder="All the groups you see" clearable value={draft.group} onChange={(g) => setDraft((d) => ({ ...d, group: g }))} />
          <TextInput type="date" label="From" description="Default: the last few periods" value={draft.from} onChange={(e) => setDraft((d) => ({ ...d, from: e.currentTarget.value }))} />
          <TextInput type="date" label="To" description="Default: today" value={draft.to} onChange={(e) => setDraft((d) => ({ ...d, to: e.currentTarget.value }))} />
        </SimpleGrid>
        <Group mt="md"><Button type="submit" loading={rollup.isFetching}>Show</Button></Group>
      </Card>
      <ErrorAlert error={rollup.error} title="The rollup could not be loaded" />
      {rollup.isPending && !rollup.isError && <Loading label="Loading the rollup" />}
      {rollup.data && rollup.data.periods.length === 0 && <Text>No periods in this window. Choose an earlier “From”.</Text>}
      {rollup.data && [...rollup.data.periods].reverse().map((p) => {
        const reported = (submissions.data?.data ?? []).filter((s) => s.period === p.period);
        return (
          <Card key={p.period} withBorder aria-label={`Period ${p.period}`} component="section">
            <Stack gap="xs">
              <Group justify="space-between">
                <Title order={2} size="h4">{template.data?.frequency === 'Monthly' ? 'Month' : 'Week'} of {f.date(p.period)}</Title>
                <Group gap="xs">
                  <Badge variant="light">{p.submitted} reported</Badge>
                  <Badge color={p.missing.length ? 'red.9' : 'gray'} variant={p.missing.length ? 'filled' : 'light'}>{p.missing.length} not yet</Badge>
                </Group>
              </Group>
              <SimpleGrid cols={{ base: 1, sm: 2 }}>
                <div>
                  <Text fw={600} size="sm">Reported</Text>
                  {reported.length === 0 ? <Text size="sm" c="dimmed">Nobody yet.</Text> : (
                    <ul aria-label={`Reported for ${p.period}`} style={{ margin: 0, paddingInlineStart: '1.2em' }}>
                      {reported.map((s) => <li key={s.id}><Text size="sm">{s.group.name}{s.submittedBy ? ` (by ${s.submittedBy.username})` : ''}</Text></li>)}
                    </ul>
                  )}
                </div>
                <div>
                  <Text fw={600} size="sm">Not yet reported</Text>
                  {p.missing.length === 0 ? <Text size="sm" c="dimmed">Everyone has reported.</Text> : (
                    <ul aria-label={`Not yet reported for ${p.period}`} style={{ margin: 0, paddingInlineStart: '1.2em' }}>
                      {p.missing.map((g) => <li key={g.id}><Text size="sm">{g.name}</Text></li>)}
                    </ul>
                  )}
                </div>
              </SimpleGrid>
              {numeric.length > 0 && (
                <Table.ScrollContainer minWidth={280}>
                  <Table aria-label={`Totals for ${p.period}`}>
                    <Table.Thead><Table.Tr>{numeric.map((fl) => <Table.Th key={fl.key} ta="right">{fl.label}</Table.Th>)}</Table.Tr></Table.Thead>
                    <Table.Tbody><Table.Tr>{numeric.map((fl) => <Table.Td key={fl.key} ta="right">{f.number(p.sums[fl.key] ?? 0)}</Table.Td>)}</Table.Tr></Table.Tbody>
                  </Table>
                </Table.ScrollContainer>
              )}
            </Stack>
          </Card>
        );
      })}
    </Page>
  );
}
