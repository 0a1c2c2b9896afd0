import { Anchor, Button, Group, Pagination, Select, Table, Text, TextInput } from '@mantine/core';
import { useDebouncedValue } from '@mantine/hooks';
import { useState } from 'react';
import { Link, useSearchParams } from 'react-router';
import { ErrorAlert, Loading, Page, useFormat } from '../../shared';
import { exportCsv, useContributions, useFunds, type ContributionFilter } from './api';
import { AreaNav } from './AreaNav';

const METHOD_LABELS: Record<string, string> = { BankTransfer: 'Bank transfer', MobileMoney: 'Mobile money' };

/** Every gift, filtered by fund, dates and donor name, with the same filters as a CSV download. */
export function ContributionsPage() {
  const f = useFormat();
  const [params, setParams] = useSearchParams();
  const funds = useFunds();
  const q = params.get('q') ?? '';
  const [debounced] = useDebouncedValue(q.trim(), 250);
  const filter: ContributionFilter = {
    fundId: params.get('fund') ? Number(params.get('fund')) : undefined,
    from: params.get('from') || undefined,
    to: params.get('to') || undefined,
    q: debounced || undefined,
  };
  const page = Number(params.get('page') ?? 1);
  const list = useContributions(filter, page);
  const set = (next: Record<string, string>) => setParams({ ...Object.fromEntries(params), page: '1', ...next }, { replace: true });
  const [exporting, setExporting] = useState(false);
  const [exportError, setExportError] = useState<unknown>();
  const total = list.data?.total ?? 0;
  const filtered = Boolean(filter.fundId || filter.from || filter.to || filter.q);

  const download = async () => {
    setExporting(true);
    setExportError(undefined);
    try {
      const url = await exportCsv(filter);
      const a = document.createElement('a');
      a.href = url;
      a.download = `contributions${filter.from ? `-${filter.from}` : ''}${filter.to ? `-${filter.to}` : ''}.csv`;
      a.click();
      setTimeout(() => URL.revokeObjectURL(url), 60_000);
    } catch (err) {
      setExportError(err);
    } finally {
      setExporting(false);
    }
  };

  return (
    <Page title="Contributions" actions={<Button variant="default" onClick={() => void download()} loading={exporting}>Export CSV</Button>}>
      <AreaNav />
      <Group align="flex-end" gap="xs" wrap="wrap">
        <TextInput type="search" label="Donor" placeholder="Name" value={q} onChange={(e) => set({ q: e.currentTarget.value })} style={{ flex: '2 1 180px' }} />
        <Select label="Fund" placeholder="All funds" clearable data={(funds.data?.data ?? []).map((x) => ({ value: String(x.id), label: x.name }))}
          value={params.get('fund')} onChange={(v) => set({ fund: v ?? '' })} style={{ flex: '1 1 150px' }} />
        <TextInput type="date" label="From" value={params.get('from') ?? ''} onChange={(e) => set({ from: e.currentTarget.value })} style={{ flex: '1 1 140px' }} />
        <TextInput type="date" label="To" value={params.get('to') ?? ''} onChange={(e) => set({ to: e.currentTarget.value })} style={{ flex: '1 1 140px' }} />
      </Group>
      <ErrorAlert error={exportError} title="The CSV was not made" />
      <ErrorAlert error={list.error} />
      {list.isPending ? <Loading /> : list.data && (
        <>
          <Text size="sm" aria-live="polite">
            {total === 0
              ? (filtered ? 'No gift matches these filters. Clear a filter or widen the dates.' : 'No gifts yet. Gifts are entered in a batch: open “Batches” and start one.')
              : `${f.number(total)} ${total === 1 ? 'gift' : 'gifts'}`}
          </Text>
          {list.data.data.length > 0 && (
            <Table.ScrollContainer minWidth={320}>
              <Table striped stickyHeader>
                <Table.Thead>
                  <Table.Tr>
                    <Table.Th>Date</Table.Th>
                    <Table.Th>Donor</Table.Th>
                    <Table.Th visibleFrom="sm">Fund</Table.Th>
                    <Table.Th ta="right">Amount</Table.Th>
                    <Table.Th visibleFrom="md">Method</Table.Th>
                    <Table.Th visibleFrom="md">Batch</Table.Th>
                  </Table.Tr>
                </Table.Thead>
                <Table.Tbody>
                  {list.data.data.map((g) => (
                    <Table.Tr key={g.id}>
                      <Table.Td style={{ whiteSpace: 'nowrap' }}>{f.date(g.date)}</Table.Td>
                      <Table.Td>{g.contact ? <Anchor component={Link} to={`/people/${g.contact.id}`}>{`${g.contact.firstName} ${g.contact.lastName}`.trim()}</Anchor> : 'Anonymous'}</Table.Td>
                      <Table.Td visibleFrom="sm">{g.lines.map((l) => l.fund.name).join(', ')}</Table.Td>
                      <Table.Td ta="right" style={{ whiteSpace: 'nowrap' }}>
                        {f.money(g.amount)}
                        {g.refundedAmount > 0 && <Text span size="xs" c="dimmed"> ({f.money(g.refundedAmount)} refunded)</Text>}
                      </Table.Td>
                      <Table.Td visibleFrom="md">{METHOD_LABELS[g.method] ?? g.method}</Table.Td>
                      <Table.Td visibleFrom="md">{g.batch ? <Anchor component={Link} to={`/giving/batches/${g.batch.id}`}>{g.batch.name}</Anchor> : '—'}</Table.Td>
                    </Table.Tr>
                  ))}
                </Table.Tbody>
              </Table>
            </Table.ScrollContainer>
          )}
          {total > list.data.limit && (
            <Group justify="center">
              <Pagination total={Math.ceil(total / list.data.limit)} value={page} onChange={(n) => setParams({ ...Object.fromEntries(params), page: String(n) })}
                getControlProps={(control) => ({ 'aria-label': `${control} page` })} getItemProps={(n) => ({ 'aria-label': `Page ${n}` })} />
            </Group>
          )}
        </>
      )}
    </Page>
  );
}
