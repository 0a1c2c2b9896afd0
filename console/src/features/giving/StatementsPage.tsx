import { Anchor, Button, Group, NumberInput, Paper, Stack, Table, Text, TextInput, Title } from '@mantine/core';
import { useQuery } from '@tanstack/react-query';
import { useState, type FormEvent } from 'react';
import { useSearchParams } from 'react-router';
import { Can, ErrorAlert, Loading, Page, useFormat } from '../../shared';
import { bulkStatements, statementPdf, useStatement, type Donor } from './api';
import { AreaNav } from './AreaNav';
import { DonorPicker, type PickedDonor } from './DonorPicker';
import { useAmountParser } from './money';

const lastYear = () => new Date().getFullYear() - 1;
const householdDetail = () => 'Household · one statement for its members';

/** A donor's or household's statement for a period: the summary and the PDF in place; every donor's year-end statements in one ZIP. */
export function StatementsPage() {
  const [params, setParams] = useSearchParams();
  const donor: Donor | undefined = params.get('household') ? { kind: 'household', id: Number(params.get('household')) }
    : params.get('contact') ? { kind: 'contact', id: Number(params.get('contact')) } : undefined;
  const from = params.get('from') ?? `${lastYear()}-01-01`;
  const to = params.get('to') ?? `${lastYear()}-12-31`;
  const [picked, setPicked] = useState<PickedDonor | null>(null);
  const [search, setSearch] = useState('');
  const [period, setPeriod] = useState({ from, to });
  const [problem, setProblem] = useState<string>();

  const show = (e: FormEvent) => {
    e.preventDefault();
    setProblem(undefined);
    if (!picked && !donor) return setProblem('Pick a donor or a household from the list');
    if (period.to < period.from) return setProblem('The period ends before it starts');
    const who: Record<string, string> = picked ? (picked.householdId ? { household: String(picked.householdId) } : { contact: String(picked.contactId) })
      : donor!.kind === 'household' ? { household: String(donor!.id) } : { contact: String(donor!.id) };
    setParams({ ...who, from: period.from, to: period.to });
  };

  return (
    <Page title="Statements">
      <AreaNav />
      <Paper withBorder p="sm" radius="md" component="section" aria-label="Choose a statement">
        <form onSubmit={show} noValidate>
          <Group align="flex-start" gap="xs" wrap="wrap">
            <DonorPicker label="Donor or household" value={picked} search={search} onSearchChange={setSearch} onChange={setPicked} householdDetail={householdDetail} />
            <TextInput type="date" label="From" value={period.from} onChange={(e) => { const v = e.currentTarget.value; setPeriod((p) => ({ ...p, from: v })); }} style={{ flex: '1 1 140px' }} />
            <TextInput type="date" label="To" value={period.to} onChange={(e) => { const v = e.currentTarget.value; setPeriod((p) => ({ ...p, to: v })); }} style={{ flex: '1 1 140px' }} />
            <Button type="submit" mt={24}>Show statement</Button>
          </Group>
          {problem && <Text size="sm" c="red.8" role="alert" mt={4}>{problem}</Text>}
        </form>
      </Paper>
      {donor ? <Statement donor={donor} from={from} to={to} /> : <Text size="sm" c="dimmed">Pick a donor or a household and a period, then “Show statement”: its totals and the PDF to print or send appear here.</Text>}
      <Can permission="finance:admin"><YearEnd /></Can>
    </Page>
  );
}

/** The PDF shown: one blob at a time, the previous one let go when the next is made. */
let shown: string | undefined;
async function shownPdf(donor: Donor, from: string, to: string): Promise<string> {
  const url = await statementPdf(donor, from, to);
  if (shown) URL.revokeObjectURL(shown);
  shown = url;
  return url;
}

function Statement({ donor, from, to }: { donor: Donor; from: string; to: string }) {
  const f = useFormat();
  const summary = useStatement(donor, from, to);
  const pdf = useQuery({ queryKey: ['giving', 'statement-pdf', donor, from, to], queryFn: () => shownPdf(donor, from, to), gcTime: 0, staleTime: Infinity, retry: false });
  if (summary.isPending) return <Loading label="Loading the statement" />;
  if (!summary.data) return <ErrorAlert error={summary.error} title="No statement" />;
  const s = summary.data;
  const filename = `statement-${s.name.replace(/[^A-Za-z0-9]+/g, '-')}-${s.period.from}-${s.period.to}.pdf`;
  return (
    <Stack gap="sm" component="section" aria-labelledby="statement-title">
      <Title order={2} size="h4" id="statement-title">{s.name}: {f.date(s.period.from)} to {f.date(s.period.to)}</Title>
      {s.lines === 0
        ? <Text size="sm">No gifts in this period. Choose other dates, or check the gifts were entered to this donor.</Text>
        : (
          <Table maw={520} aria-label="Statement totals">
            <Table.Tbody>
              {s.totals.byFund.map((b) => (
                <Table.Tr key={b.fund.id}><Table.Td>{b.fund.name}</Table.Td><Table.Td ta="right">{f.money(b.amount)}</Table.Td></Table.Tr>
              ))}
              <Table.Tr><Table.Th>Total ({f.number(s.lines)} {s.lines === 1 ? 'gift' : 'gifts'})</Table.Th><Table.Td ta="right" fw={700}>{f.money(s.totals.total)}</Table.Td></Table.Tr>
              <Table.Tr><Table.Td>Tax-deductible</Table.Td><Table.Td ta="right">{f.money(s.totals.deductible)}</Table.Td></Table.Tr>
            </Table.Tbody>
          </Table>
        )}
      <ErrorAlert error={pdf.error} title="The PDF was not made" />
      {pdf.isPending && <Loading label="Making the PDF" />}
      {pdf.data && (
        <>
          <Anchor href={pdf.data} download={filename} size="sm">Download the PDF</Anchor>
          <object data={pdf.data} type="application/pdf" title={`Giving statement of ${s.name}`} aria-label={`Giving statement of ${s.name}`}
            style={{ width: '100%', height: '70vh', minHeight: 420, border: '1px solid var(--mantine-color-default-border)', borderRadius: 4 }}>
            <Text size="sm" p="md">This browser cannot show the PDF here: <Anchor href={pdf.data} download={filename}>download the statement</Anchor> to open or print it.</Text>
          </object>
        </>
      )}
    </Stack>
  );
}

/** Every donor's statement for a year as one ZIP (finance:admin). */
function YearEnd() {
  const amounts = useAmountParser();
  const [year, setYear] = useState<string | number>(lastYear());
  const [minimum, setMinimum] = useState('');
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<unknown>();
  const [done, setDone] = useState('');

  const download = async (e: FormEvent) => {
    e.preventDefault();
    setError(undefined);
    setDone('');
    const minTotal = minimum.trim() === '' ? undefined : amounts.parse(minimum);
    if (minimum.trim() !== '' && minTotal === undefined) return setError(new Error(`“${minimum}” is not an amount: type it like 50 or 50.00`));
    setBusy(true);
    try {
      const url = await bulkStatements({ from: `${year}-01-01`, to: `${year}-12-31`, ...(minTotal ? { minTotal } : {}) });
      const a = document.createElement('a');
      a.href = url;
      a.download = `statements-${year}.zip`;
      a.click();
      setTimeout(() => URL.revokeObjectURL(url), 60_000);
      setDone(`The ${year} statements were downloaded (one PDF per donor or giving-together household).`);
    } catch (err) {
      setError(err);
    } finally {
      setBusy(false);
    }
  };

  return (
    <Paper withBorder p="sm" radius="md" component="section" aria-labelledby="year-end-title">
      <Title order={2} size="h4" id="year-end-title" mb={4}>Year-end statements for everyone</Title>
      <Text size="sm" c="dimmed" mb="xs">One ZIP of PDFs: a statement per donor, one per household that gives together.</Text>
      <form onSubmit={(e) => void download(e)} noValidate>
        <Group align="flex-end" gap="xs" wrap="wrap">
          <NumberInput label="Year" value={year} onChange={setYear} min={2000} max={2100} allowDecimal={false} w={120} />
          <TextInput label="Only donors who gave at least" placeholder="Any amount" value={minimum} onChange={(e) => setMinimum(e.currentTarget.value)} inputMode="decimal" w={220} />
          <Button type="submit" loading={busy}>Download all statements</Button>
        </Group>
      </form>
      <ErrorAlert error={error} title="The statements were not made" />
      <Text size="sm" aria-live="polite">{done}</Text>
    </Paper>
  );
}
