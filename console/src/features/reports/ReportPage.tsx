import { BarChart, LineChart } from '@mantine/charts';
import { Anchor, Button, Card, Checkbox, Group, NumberInput, SegmentedControl, Select, SimpleGrid, Stack, Table, Text, TextInput } from '@mantine/core';
import { notifications } from '@mantine/notifications';
import { useMemo, useState, type FormEvent } from 'react';
import { Link, useParams, useSearchParams } from 'react-router';
import { ErrorAlert, errorMessage, GroupPicker, Loading, Page, useFormat, type PickedGroup } from '../../shared';
import { downloadCsv, useCatalog, useFundChoices, useGroupName, useReport, type CatalogItem, type ReportOutput, type ReportParameter, type ReportQuery } from './api';

const LABELS: Record<string, string> = {
  from: 'From', to: 'To', groupId: 'Group', includeDescendants: 'Include the groups under it', interval: 'Interval', missed: 'Missed sessions in a row', fundId: 'Fund', campaign: 'Campaign',
};
const label = (p: ReportParameter) => LABELS[p.key] ?? p.key.replace(/([A-Z])/g, ' $1').replace(/^./, (c) => c.toUpperCase());

/** One standard report: its parameters as a form (from the catalog), its result as a chart with the table one click away, and the CSV. */
export function ReportPage() {
  const { key = '' } = useParams();
  const catalog = useCatalog();
  const report = catalog.data?.data.find((r) => r.key === key);
  if (catalog.isPending) return <Page title="Report"><Loading /></Page>;
  if (catalog.isError) return <Page title="Report"><ErrorAlert error={catalog.error} /></Page>;
  if (!report) {
    return (
      <Page title="Report not found">
        <Text>There is no report “{key}” open to you. <Anchor component={Link} to="/reports">Back to the reports</Anchor></Text>
      </Page>
    );
  }
  return <ReportRun report={report} />;
}

function ReportRun({ report }: { report: CatalogItem }) {
  const f = useFormat();
  const [search, setSearch] = useSearchParams();
  const params = report.parameters.filter((p) => p.key !== 'format');
  // The applied query lives in the address (a report can be bookmarked and shared); the form edits a copy.
  const applied = useMemo(() => {
    const q: ReportQuery = {};
    for (const p of params) {
      const v = search.get(p.key);
      if (v !== null && v !== '') q[p.key] = v;
    }
    return q;
  }, [search, params]);
  const [draft, setDraft] = useState<ReportQuery>(applied);
  // The names of the groups picked here; a group named only by the address (a bookmark) is read once.
  const [names, setNames] = useState<Record<number, string>>({});
  const urlGroupId = groupIdOf(applied.groupId);
  const urlGroup = useGroupName(urlGroupId !== undefined && names[urlGroupId] === undefined ? urlGroupId : undefined);
  const groupName = (id: number) => names[id] ?? (urlGroup.data?.id === id ? urlGroup.data.name : undefined);
  const groups = { name: groupName, picked: (g: PickedGroup) => setNames((n) => ({ ...n, [g.id]: g.name })) };
  const result = useReport(report.key, applied);
  const [view, setView] = useState<'chart' | 'table'>('chart');
  const [downloading, setDownloading] = useState(false);

  const run = (e: FormEvent) => {
    e.preventDefault();
    setSearch(Object.fromEntries(Object.entries(draft).filter(([, v]) => v !== '')), { replace: true });
  };
  const csv = async () => {
    setDownloading(true);
    try {
      const name = await downloadCsv(report.key, applied);
      notifications.show({ color: 'green', message: `Downloaded ${name}` });
    } catch (err) {
      notifications.show({ color: 'red', title: 'The CSV could not be downloaded', message: errorMessage(err) });
    } finally {
      setDownloading(false);
    }
  };

  return (
    <Page title={report.name} actions={<Anchor component={Link} to="/reports">All reports</Anchor>}>
      <Text c="dimmed">{report.description}</Text>
      <Card withBorder component="form" onSubmit={run} aria-label="Report parameters">
        <SimpleGrid cols={{ base: 1, xs: 2, md: 4 }} verticalSpacing="sm">
          {params.filter((p) => p.key !== 'includeDescendants' || draft.groupId).map((p) => (
            <ParameterField key={p.key} param={p} value={draft[p.key] ?? ''} onChange={(v) => setDraft((d) => ({ ...d, [p.key]: v }))} groups={groups} />
          ))}
        </SimpleGrid>
        <Group mt="md">
          <Button type="submit" loading={result.isFetching}>Run report</Button>
          <Button variant="default" onClick={() => void csv()} loading={downloading} disabled={!result.data}>Download CSV</Button>
        </Group>
      </Card>
      <ErrorAlert error={result.error} title="The report could not be run" />
      {result.isPending && !result.isError && <Loading label="Running the report" />}
      {result.data && (
        <Stack gap="sm">
          <Group justify="space-between">
            <Text size="sm" c="dimmed">{describeScope(result.data, f, groupName)}</Text>
            <SegmentedControl aria-label="Show as" value={view} onChange={(v) => setView(v as 'chart' | 'table')} data={[{ value: 'chart', label: 'Chart' }, { value: 'table', label: 'Table' }]} />
          </Group>
          {result.data.rows.length === 0
            ? <Text>No rows for this window and scope. Try a longer window or another group.</Text>
            : view === 'chart' ? <ReportChart output={result.data} /> : <ReportTable output={result.data} />}
        </Stack>
      )}
    </Page>
  );
}

function describeScope(out: ReportOutput, f: ReturnType<typeof useFormat>, groupName: (id: number) => string | undefined) {
  const p = out.parameters as Record<string, unknown>;
  const scope = !('groupId' in p) ? 'the whole church'
    : p.groupId === null ? 'all the groups you see'
      : `${groupName(Number(p.groupId)) ?? 'the chosen group'}${p.includeDescendants === false ? ' only' : ' and the groups under it'}`;
  return `${f.date(String(p.from))} to ${f.date(String(p.to))} · ${scope} · ${out.rows.length} row${out.rows.length === 1 ? '' : 's'}`;
}

type GroupNames = { name(id: number): string | undefined; picked(group: PickedGroup): void };

/** A group id of the address or the form ('' or anything not an id: none). */
function groupIdOf(value: string | undefined): number | undefined {
  const id = Number(value);
  return value && Number.isInteger(id) && id > 0 ? id : undefined;
}

function ParameterField({ param, value, onChange, groups }: { param: ReportParameter; value: string; onChange: (v: string) => void; groups: GroupNames }) {
  const name = label(param);
  const hint = param.default !== null && param.default !== undefined && param.type !== 'boolean' ? `Default: ${String(param.default)}` : param.description;
  if (param.key === 'groupId') return <GroupField value={value} onChange={onChange} groups={groups} />;
  if (param.key === 'fundId') return <FundField value={value} onChange={onChange} />;
  if (param.type === 'boolean') {
    const checked = value === '' ? param.default !== false : value === 'true';
    return <Checkbox mt={{ xs: 'xl' }} label={name} checked={checked} onChange={(e) => onChange(String(e.currentTarget.checked))} />;
  }
  if (param.type === 'date') return <TextInput type="date" label={name} description={param.description} value={value} onChange={(e) => onChange(e.currentTarget.value)} />;
  if (param.options && param.options.length > 0) {
    return <Select label={name} data={param.options} value={value || (param.default === null ? null : String(param.default))} onChange={(v) => onChange(v ?? '')} allowDeselect={false} />;
  }
  if (param.type === 'integer' || param.type === 'id') {
    return <NumberInput label={name} description={hint} value={value === '' ? '' : Number(value)} min={1} allowDecimal={false} onChange={(v) => onChange(v === '' ? '' : String(v))} />;
  }
  return <TextInput label={name} description={hint} required={param.required} value={value} onChange={(e) => onChange(e.currentTarget.value)} />;
}

function GroupField({ value, onChange, groups }: { value: string; onChange: (v: string) => void; groups: GroupNames }) {
  const id = groupIdOf(value);
  const group = id === undefined ? null : { id, name: groups.name(id) ?? `Group #${id}` };
  return (
    <GroupPicker label="Group" placeholder="All the groups you see" clearable value={group}
      onChange={(g) => {
        if (g) groups.picked(g);
        onChange(g ? String(g.id) : '');
      }} />
  );
}

function FundField({ value, onChange }: { value: string; onChange: (v: string) => void }) {
  const funds = useFundChoices(true);
  return (
    <Select label="Fund" placeholder="Every fund" clearable searchable data={(funds.data?.data ?? []).map((f) => ({ value: String(f.id), label: f.name }))}
      value={value || null} onChange={(v) => onChange(v ?? '')} error={funds.error ? errorMessage(funds.error) : undefined} />
  );
}

const NUMERIC = new Set(['integer', 'number', 'money', 'percent']);
const COLORS = ['indigo.6', 'teal.6', 'orange.6', 'grape.6', 'cyan.6', 'red.6', 'lime.7', 'pink.6'];

function cellText(type: string, v: unknown, f: ReturnType<typeof useFormat>): string {
  if (v === null || v === undefined) return '';
  if (typeof v === 'object') {
    const o = v as Record<string, unknown>;
    if (type === 'contact') return [o.firstName, o.lastName].filter(Boolean).join(' ');
    if (type === 'user') return String(o.username ?? '');
    return String(o.name ?? o.id ?? '');
  }
  if (type === 'date' && typeof v === 'string') return f.date(v);
  if (type === 'money' && typeof v === 'number') return f.money(v);
  if (type === 'percent' && typeof v === 'number') return `${Math.round(v * 10) / 10}%`;
  if (type === 'boolean') return v ? 'Yes' : 'No';
  if (typeof v === 'number') return f.number(Math.round(v * 100) / 100);
  return String(v);
}

/** The rows as a chart: the first non-numeric column along the axis, each numeric column a series (money in the major unit). */
function ReportChart({ output }: { output: ReportOutput }) {
  const f = useFormat();
  const x = output.columns.find((c) => !NUMERIC.has(c.type));
  const numeric = output.columns.filter((c) => NUMERIC.has(c.type));
  if (!x || numeric.length === 0) return <ReportTable output={output} />;
  const rows = output.rows.slice(0, 60);
  const data = rows.map((r) => ({
    [x.key]: cellText(x.type, r[x.key], f),
    ...Object.fromEntries(numeric.map((c) => [c.key, c.type === 'money' ? f.major(Number(r[c.key] ?? 0)) : Number(r[c.key] ?? 0)])),
  }));
  const series = numeric.map((c, i) => ({ name: c.key, label: c.label, color: COLORS[i % COLORS.length] }));
  const money = numeric.every((c) => c.type === 'money');
  const props = { h: 320, data, dataKey: x.key, series, withLegend: true, valueFormatter: money ? f.moneyMajor : f.number };
  return (
    <Card withBorder>
      {x.type === 'date' && rows.length > 1 ? <LineChart {...props} /> : <BarChart {...props} />}
      {output.rows.length > rows.length && <Text size="sm" c="dimmed" mt="xs">The chart shows the first {rows.length} of {output.rows.length} rows; the table has them all.</Text>}
    </Card>
  );
}

function ReportTable({ output }: { output: ReportOutput }) {
  const f = useFormat();
  const totals = output.totals as Record<string, unknown>;
  const hasTotals = output.columns.some((c) => NUMERIC.has(c.type) && typeof totals[c.key] === 'number');
  return (
    <Table.ScrollContainer minWidth={320} maxHeight={560}>
      <Table striped stickyHeader aria-label={`${output.name}: ${output.rows.length} rows`}>
        <Table.Thead>
          <Table.Tr>{output.columns.map((c) => <Table.Th key={c.key} ta={NUMERIC.has(c.type) ? 'right' : undefined}>{c.label}</Table.Th>)}</Table.Tr>
        </Table.Thead>
        <Table.Tbody>
          {output.rows.map((r, i) => (
            <Table.Tr key={i}>
              {output.columns.map((c) => <Table.Td key={c.key} ta={NUMERIC.has(c.type) ? 'right' : undefined}>{cellText(c.type, r[c.key], f)}</Table.Td>)}
            </Table.Tr>
          ))}
        </Table.Tbody>
        {hasTotals && (
          <Table.Tfoot>
            <Table.Tr>
              {output.columns.map((c, i) => (
                <Table.Th key={c.key} ta={NUMERIC.has(c.type) ? 'right' : undefined}>
                  {typeof totals[c.key] === 'number' ? cellText(c.type, totals[c.key], f) : i === 0 ? 'Total' : ''}
                </Table.Th>
              ))}
            </Table.Tr>
          </Table.Tfoot>
        )}
      </Table>
    </Table.ScrollContainer>
  );
}
