import { LineChart } from '@mantine/charts';
import '@mantine/charts/styles.css'; // the legend's layout (main.tsx loads only core's and notifications' styles)
import { Button, Card, Group, SegmentedControl, Select, Stack, Text, TextInput, Title } from '@mantine/core';
import { useState } from 'react';
import { ErrorAlert, GroupPicker, Loading, Page, useFormat, useSignedIn, type PickedGroup } from '../../shared';
import { addDays, todayIn, useSummary, type SummaryQuery } from './api';
import { AreaNav } from './AreaNav';
import { SummaryTable } from './SummaryTable';

const WINDOWS = [
  { value: '4', label: 'Last 4 weeks' },
  { value: '12', label: 'Last 12 weeks' },
  { value: '26', label: 'Last 26 weeks' },
  { value: '52', label: 'Last 52 weeks' },
  { value: 'custom', label: 'From … to …' },
];

/** The Sunday starting the week N−1 weeks before today's (weeks start on Sunday, as the API's do). */
function lastWeeksFrom(today: string, weeks: number): string {
  const sunday = addDays(today, -new Date(`${today}T00:00:00Z`).getUTCDay());
  return addDays(sunday, -7 * (weeks - 1));
}

/** The attendance of a group's subtree over a window, by week or month: a chart, the table one click away. */
export function SummaryPage() {
  const f = useFormat();
  const { tenant } = useSignedIn();
  const today = todayIn(tenant.timeZone);
  const [group, setGroup] = useState<PickedGroup | null>(null);
  const [span, setSpan] = useState('12');
  const [from, setFrom] = useState(lastWeeksFrom(today, 12));
  const [to, setTo] = useState(today);
  const [interval, setBy] = useState<'week' | 'month'>('week');
  const [asTable, setAsTable] = useState(false);
  const custom = span === 'custom';
  const badRange = custom && (!from || !to || from > to);
  const query: SummaryQuery = {
    groupId: group?.id, interval,
    ...(custom ? (badRange ? {} : { from, to }) : { from: lastWeeksFrom(today, Number(span)), to: today }),
  };
  const summary = useSummary(query);
  const d = summary.data;

  return (
    <Page title="Attendance summary">
      <AreaNav />
      <Group align="flex-end" gap="sm" wrap="wrap">
        <GroupPicker label="Group (with everything under it)" clearable placeholder="All groups you can see" value={group} onChange={setGroup} />
        <Select label="Window" data={WINDOWS} value={span} allowDeselect={false} w={170} onChange={(v) => v && setSpan(v)} />
        {custom && (
          <>
            <TextInput type="date" label="From" value={from} onChange={(e) => setFrom(e.currentTarget.value)} w={170} max="9999-12-31" />
            <TextInput type="date" label="To" value={to} onChange={(e) => setTo(e.currentTarget.value)} w={170} max="9999-12-31" />
          </>
        )}
        <Stack gap={4}>
          <Text size="sm" fw={500} id="interval-label">By</Text>
          <SegmentedControl aria-labelledby="interval-label" value={interval} onChange={(v) => setBy(v as 'week' | 'month')}
            data={[{ value: 'week', label: 'Week' }, { value: 'month', label: 'Month' }]} />
        </Stack>
      </Group>
      {badRange && <Text c="red.8" size="sm" role="alert">Choose both dates, the first not after the second.</Text>}
      <ErrorAlert error={summary.error} title="The summary could not be loaded" />
      {summary.isPending ? <Loading label="Loading the summary" /> : d && (
        <Card withBorder component="section" aria-label="Attendance by period">
          <Group justify="space-between" mb="sm" wrap="wrap">
            <Stack gap={0}>
              <Title order={2} size="h4">{group ? group.name : 'All groups you can see'}</Title>
              <Text size="sm" c="dimmed">{f.date(d.from)} – {f.date(d.to)} · {f.number(d.totals.present)} present at {f.number(d.totals.sessions)} {d.totals.sessions === 1 ? 'session' : 'sessions'}</Text>
            </Stack>
            <Button variant="default" onClick={() => setAsTable(!asTable)} aria-pressed={asTable}>{asTable ? 'Show as chart' : 'Show as table'}</Button>
          </Group>
          {d.totals.sessions === 0 && d.totals.headcount === 0 && (
            <Text c="dimmed" mb="sm">No attendance in this window. Choose a longer window or another group, or take attendance from “This Sunday”.</Text>
          )}
          {asTable ? <SummaryTable summary={d} /> : (
            <LineChart h={280} data={d.data.map((p) => ({ ...p, period: f.date(p.period) }))} dataKey="period" withLegend
              series={[
                { name: 'present', label: 'Present', color: 'indigo.6' },
                { name: 'guests', label: 'Guests', color: 'teal.7' },
                { name: 'headcount', label: 'Headcount', color: 'orange.7' },
              ]} />
          )}
        </Card>
      )}
    </Page>
  );
}
