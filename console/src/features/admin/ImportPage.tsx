import { Alert, Anchor, Button, Group, List, Pagination, Paper, Progress, Select, SegmentedControl, SimpleGrid, Stack, Stepper, Table, Text, Title } from '@mantine/core';
import { useMediaQuery } from '@mantine/hooks';
import { useMutation } from '@tanstack/react-query';
import { useMemo, useState, type ChangeEvent } from 'react';
import { Link } from 'react-router';
import { ErrorAlert, Loading, useFormat } from '../../shared';
import { postImport, useImportFormats, type ImportFormats, type ImportResult } from './api';
import { headerKey, parseCsv, toCsv } from './csv';
import { AdminPage, Tag } from './sections';

const FIELD_LABELS: Record<string, string> = {
  firstName: 'First name', lastName: 'Last name', email: 'Email', phone: 'Phone', gender: 'Gender', dateOfBirth: 'Date of birth',
  street: 'Street', city: 'City', country: 'Country', householdKey: 'Household (family) id', householdRole: 'Role in household',
};
const REQUIRED = ['firstName', 'lastName'];
const OUTCOME_COLOR: Record<string, string> = { created: 'green', updated: 'blue', unchanged: 'gray', error: 'red' };
/** Rows per request of the real import: the progress bar moves per chunk. */
const CHUNK = 200;

interface Loaded {
  fileName: string;
  header: string[];
  records: string[][];
  format: ImportFormats['data'][number];
  /** Field → the column the recognised format takes it from (undefined: none). */
  defaults: Record<string, string | undefined>;
}

/** The recognised format of a header (the first whose headers are all present; Parish's own otherwise), and its column per field. */
function recognise(formats: ImportFormats, header: string[]): Pick<Loaded, 'format' | 'defaults'> {
  const present = new Map(header.map((h) => [headerKey(h), h]));
  const format = formats.data.find((f) => f.recognisedBy.length > 0 && f.recognisedBy.every((h) => present.has(headerKey(h)))) ?? formats.data[formats.data.length - 1];
  const defaults: Record<string, string | undefined> = {};
  for (const field of formats.fields) defaults[field] = (format.columns[field] ?? []).map((c) => present.get(headerKey(c))).find((c) => c !== undefined);
  return { format, defaults };
}

/** The import wizard: upload a CSV, map its columns, see the dry run row by row, import with progress, then the people and households made. */
export function ImportPage() {
  const formats = useImportFormats();
  // On a phone the steps keep to one line: their descriptions go.
  const narrow = useMediaQuery('(max-width: 36em)');
  const [step, setStep] = useState(0);
  const [file, setFile] = useState<Loaded>();
  const [fileError, setFileError] = useState<string>();
  const [mapping, setMapping] = useState<Record<string, string | undefined>>({});
  const [progress, setProgress] = useState<{ done: number; total: number }>();
  const [result, setResult] = useState<ImportResult>();

  const map = useMemo(() => Object.entries(mapping).filter(([field, column]) => column && column !== file?.defaults[field]).map(([field, column]) => `${column}=${field}`), [mapping, file]);
  const csv = useMemo(() => (file ? toCsv(file.header, file.records) : ''), [file]);

  const dryRun = useMutation({ mutationFn: () => postImport(csv, { dryRun: true, map }) });
  const run = useMutation({
    mutationFn: async () => {
      const total = file!.records.length;
      const sum: ImportResult = { total: 0, created: 0, updated: 0, unchanged: 0, failed: 0, rows: [], households: [] };
      setProgress({ done: 0, total });
      for (let start = 0; start < total; start += CHUNK) {
        const part = await postImport(toCsv(file!.header, file!.records.slice(start, start + CHUNK)), { dryRun: false, map });
        sum.total += part.total;
        sum.created += part.created;
        sum.updated += part.updated;
        sum.unchanged += part.unchanged;
        sum.failed += part.failed;
        sum.rows.push(...part.rows.map((r) => ({ ...r, row: r.row + start })));
        for (const h of part.households) if (!sum.households.some((x) => x.id === h.id)) sum.households.push(h);
        setProgress({ done: Math.min(start + CHUNK, total), total });
      }
      return sum;
    },
    onSuccess: (sum) => {
      setResult(sum);
      setStep(3);
    },
  });

  const load = async (e: ChangeEvent<HTMLInputElement>) => {
    const chosen = e.currentTarget.files?.[0];
    setFileError(undefined);
    dryRun.reset();
    if (!chosen || !formats.data) return;
    const rows = parseCsv(await chosen.text());
    if (rows.length < 2) {
      setFileError(`${chosen.name} has ${rows.length === 0 ? 'nothing in it' : 'a header and no rows'}. Choose a CSV export with a header row and one row per person.`);
      return;
    }
    const [header, ...records] = rows;
    const known = recognise(formats.data, header);
    setFile({ fileName: chosen.name, header, records, ...known });
    setMapping(known.defaults);
    setStep(1);
  };

  const restart = () => {
    setFile(undefined);
    setResult(undefined);
    setProgress(undefined);
    dryRun.reset();
    run.reset();
    setStep(0);
  };

  return (
    <AdminPage title="Import people">
      <ErrorAlert error={formats.error} />
      {formats.isPending ? <Loading /> : formats.data && (
        <Stepper active={step} size="sm" allowNextStepsSelect={false} wrap={false} styles={narrow ? { stepDescription: { display: 'none' } } : undefined} onStepClick={(s) => { if (!run.isPending && !result) setStep(s); }}>
          <Stepper.Step label="File" description="Choose a CSV">
            <Paper withBorder p="md" mt="md">
              <Stack>
                <Text size="sm">
                  Export your people from Planning Center, Breeze, ChurchCRM or Elvanto as CSV (or use Parish’s own columns: {formats.data.fields.join(', ')}).
                  Nothing is written until you confirm the import.
                </Text>
                <label htmlFor="import-file"><Text fw={600} size="sm">CSV file</Text></label>
                <input id="import-file" type="file" accept=".csv,text/csv" onChange={load} />
                {fileError && <Alert color="red" role="alert" title="Cannot use this file">{fileError}</Alert>}
              </Stack>
            </Paper>
          </Stepper.Step>
          <Stepper.Step label="Columns" description="Match the columns">
            {file && (
              <Paper withBorder p="md" mt="md">
                <Stack>
                  <Text size="sm">
                    <b>{file.fileName}</b>: {file.records.length} {file.records.length === 1 ? 'row' : 'rows'}.{' '}
                    {file.format.recognisedBy.length ? <>Recognised as a <b>{file.format.name}</b> export: its columns are matched below.</> : <>Not a known export: match the columns yourself (first and last name are needed).</>}
                  </Text>
                  <SimpleGrid cols={{ base: 1, sm: 2 }}>
                    {formats.data.fields.map((field) => (
                      <Select key={field} label={FIELD_LABELS[field] ?? field} required={REQUIRED.includes(field)} placeholder="Not imported"
                        data={file.header.filter((h) => h.trim() !== '')} value={mapping[field] ?? null} clearable={!file.defaults[field]} searchable
                        onChange={(v) => setMapping((m) => ({ ...m, [field]: v ?? undefined }))}
                        description={mapping[field] ? `e.g. “${file.records[0][file.header.indexOf(mapping[field]!)] ?? ''}”` : undefined} />
                    ))}
                  </SimpleGrid>
                  <Group justify="space-between">
                    <Button variant="default" onClick={restart}>Choose another file</Button>
                    <Button onClick={() => { setStep(2); dryRun.mutate(); }} disabled={REQUIRED.some((f) => !mapping[f])}>Check the rows (dry run)</Button>
                  </Group>
                </Stack>
              </Paper>
            )}
          </Stepper.Step>
          <Stepper.Step label="Check" description="Dry run, row by row">
            <Stack mt="md">
              <ErrorAlert error={dryRun.error} title="The file was refused" />
              {dryRun.isPending && <Loading label="Checking the rows" />}
              {dryRun.data && (
                <>
                  <Counts result={dryRun.data} dry />
                  <RowResults rows={dryRun.data.rows} />
                  <ErrorAlert error={run.error} title="The import stopped" />
                  {progress && (
                    <Stack gap={4}>
                      <Text size="sm" id="import-progress">Importing: {progress.done} of {progress.total} rows</Text>
                      <Progress value={(100 * progress.done) / Math.max(progress.total, 1)} aria-labelledby="import-progress" animated={run.isPending} />
                    </Stack>
                  )}
                  <Group justify="space-between">
                    <Button variant="default" onClick={() => setStep(1)} disabled={run.isPending}>Back to the columns</Button>
                    <Button onClick={() => run.mutate()} loading={run.isPending} disabled={dryRun.data.total === dryRun.data.failed}>
                      Import {dryRun.data.total - dryRun.data.failed} {dryRun.data.total - dryRun.data.failed === 1 ? 'row' : 'rows'}
                    </Button>
                  </Group>
                </>
              )}
            </Stack>
          </Stepper.Step>
          <Stepper.Completed>
            {result && <Summary result={result} onAgain={restart} />}
          </Stepper.Completed>
        </Stepper>
      )}
    </AdminPage>
  );
}

function Counts({ result, dry = false }: { result: ImportResult; dry?: boolean }) {
  const f = useFormat();
  const items = [
    [dry ? 'to create' : 'created', result.created, 'green'],
    [dry ? 'to update' : 'updated', result.updated, 'blue'],
    ['unchanged', result.unchanged, 'gray'],
    ['with errors', result.failed, 'red'],
  ] as const;
  return (
    <Group gap="lg" aria-live="polite">
      <Text fw={700}>{f.number(result.total)} {result.total === 1 ? 'row' : 'rows'}{dry ? ' checked, nothing written yet' : ''}:</Text>
      {items.map(([label, n, color]) => <Tag key={label} color={color}>{`${f.number(n)} ${label}`}</Tag>)}
    </Group>
  );
}

/** The rows' outcomes, 25 a page, optionally only the errors. */
function RowResults({ rows }: { rows: ImportResult['rows'] }) {
  const [only, setOnly] = useState<'all' | 'error'>('all');
  const [page, setPage] = useState(1);
  const shown = only === 'error' ? rows.filter((r) => r.outcome === 'error') : rows;
  const pages = Math.ceil(shown.length / 25);
  const slice = shown.slice((page - 1) * 25, page * 25);
  return (
    <Stack gap="xs">
      <SegmentedControl aria-label="Rows shown" value={only} onChange={(v) => { setOnly(v as 'all' | 'error'); setPage(1); }} style={{ alignSelf: 'flex-start' }}
        data={[{ value: 'all', label: 'Every row' }, { value: 'error', label: `Errors (${rows.filter((r) => r.outcome === 'error').length})` }]} />
      {slice.length === 0 ? <Text size="sm">No row has an error.</Text> : (
        <Table.ScrollContainer minWidth={300}>
          <Table striped stickyHeader>
            <Table.Thead>
              <Table.Tr><Table.Th>Row</Table.Th><Table.Th>Person</Table.Th><Table.Th>Outcome</Table.Th></Table.Tr>
            </Table.Thead>
            <Table.Tbody>
              {slice.map((r) => (
                <Table.Tr key={r.row}>
                  <Table.Td>{r.row}</Table.Td>
                  <Table.Td>{r.name || <Text size="sm" c="dimmed">(no name)</Text>}</Table.Td>
                  <Table.Td>
                    <Tag color={OUTCOME_COLOR[r.outcome]}>{r.outcome}</Tag>
                    {r.message && <Text size="sm" mt={2}>{r.message}</Text>}
                  </Table.Td>
                </Table.Tr>
              ))}
            </Table.Tbody>
          </Table>
        </Table.ScrollContainer>
      )}
      {pages > 1 && (
        <Group justify="center">
          <Pagination total={pages} value={page} onChange={setPage} getControlProps={(control) => ({ 'aria-label': `${control} page` })} getItemProps={(n) => ({ 'aria-label': `Page ${n}` })} />
        </Group>
      )}
    </Stack>
  );
}

function Summary({ result, onAgain }: { result: ImportResult; onAgain(): void }) {
  const made = result.rows.filter((r) => r.outcome === 'created' && r.contactId !== undefined);
  const updated = result.rows.filter((r) => r.outcome === 'updated' && r.contactId !== undefined);
  const households = result.households;
  return (
    <Stack mt="md">
      <Title order={2} size="h3">Import finished</Title>
      <Counts result={result} />
      <SimpleGrid cols={{ base: 1, sm: 2 }}>
        <Paper withBorder p="md">
          <Title order={3} size="h5" mb="xs">People created ({made.length})</Title>
          {made.length === 0 ? <Text size="sm">Nobody new.</Text> : (
            <List size="sm" spacing={2}>
              {made.slice(0, 50).map((r) => <List.Item key={r.row}><Anchor component={Link} to={`/people/${r.contactId}`}>{r.name}</Anchor></List.Item>)}
            </List>
          )}
          {made.length > 50 && <Text size="sm" mt="xs">… and {made.length - 50} more: <Anchor component={Link} to="/people">open People</Anchor>.</Text>}
          {updated.length > 0 && <Text size="sm" mt="xs">{updated.length} already known {updated.length === 1 ? 'person was' : 'people were'} updated.</Text>}
        </Paper>
        <Paper withBorder p="md">
          <Title order={3} size="h5" mb="xs">Households ({households.length})</Title>
          {households.length === 0 ? <Text size="sm">No household was made or joined.</Text> : (
            <List size="sm" spacing={2}>
              {households.slice(0, 50).map((h) => (
                <List.Item key={h.id}><Anchor component={Link} to={`/households/${h.id}`}>{h.name}</Anchor>{h.created ? '' : ' (people added)'}</List.Item>
              ))}
            </List>
          )}
        </Paper>
      </SimpleGrid>
      {result.failed > 0 && <RowResults rows={result.rows.filter((r) => r.outcome === 'error')} />}
      <Group>
        <Button variant="default" onClick={onAgain}>Import another file</Button>
      </Group>
    </Stack>
  );
}
