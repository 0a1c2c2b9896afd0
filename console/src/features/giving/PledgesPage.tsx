import { Group, Pagination, Progress, Select, Stack, Table, Text } from '@mantine/core';
import { useSearchParams } from 'react-router';
import { ErrorAlert, Loading, Page, useFormat } from '../../shared';
import { useFunds, usePledges } from './api';
import { AreaNav } from './AreaNav';

/** Pledges with how much of each has been given. */
export function PledgesPage() {
  const f = useFormat();
  const [params, setParams] = useSearchParams();
  const funds = useFunds();
  const fundId = params.get('fund') ? Number(params.get('fund')) : undefined;
  const page = Number(params.get('page') ?? 1);
  const pledges = usePledges(fundId, page);
  const total = pledges.data?.total ?? 0;

  return (
    <Page title="Pledges">
      <AreaNav />
      <Select label="Fund" placeholder="All funds" clearable data={(funds.data?.data ?? []).map((x) => ({ value: String(x.id), label: x.name }))}
        value={params.get('fund')} onChange={(v) => setParams({ fund: v ?? '', page: '1' }, { replace: true })} maw={320} />
      <ErrorAlert error={pledges.error} />
      {pledges.isPending ? <Loading /> : pledges.data && (
        <>
          <Text size="sm">
            {total === 0 ? (fundId ? 'No pledge to this fund. Choose “All funds” to see every pledge.' : 'No pledges yet. Pledges are recorded through the API or an import; they show here with their progress.') : `${f.number(total)} ${total === 1 ? 'pledge' : 'pledges'}`}
          </Text>
          {pledges.data.data.length > 0 && (
            <Table.ScrollContainer minWidth={320}>
              <Table striped stickyHeader>
                <Table.Thead>
                  <Table.Tr>
                    <Table.Th>Donor</Table.Th>
                    <Table.Th visibleFrom="sm">Fund</Table.Th>
                    <Table.Th>Progress</Table.Th>
                  </Table.Tr>
                </Table.Thead>
                <Table.Tbody>
                  {pledges.data.data.map((p) => {
                    const name = `${p.contact.firstName} ${p.contact.lastName}`.trim();
                    return (
                      <Table.Tr key={p.id}>
                        <Table.Td>
                          <Text size="sm">{name}</Text>
                          {p.campaign && <Text size="xs" c="dimmed">{p.campaign}</Text>}
                        </Table.Td>
                        <Table.Td visibleFrom="sm">{p.fund.name}</Table.Td>
                        <Table.Td miw={180}>
                          <Stack gap={2}>
                            <Progress value={Math.min(p.percentComplete, 100)} color={p.percentComplete >= 100 ? 'teal' : 'blue'} size="lg"
                              aria-label={`${name}: ${p.percentComplete}% of the pledge given`} />
                            <Text size="xs">{f.money(p.givenAmount)} of {f.money(p.totalPledged)} ({p.percentComplete}%)</Text>
                          </Stack>
                        </Table.Td>
                      </Table.Tr>
                    );
                  })}
                </Table.Tbody>
              </Table>
            </Table.ScrollContainer>
          )}
          {total > pledges.data.limit && (
            <Group justify="center">
              <Pagination total={Math.ceil(total / pledges.data.limit)} value={page} onChange={(n) => setParams({ fund: params.get('fund') ?? '', page: String(n) })}
                getControlProps={(control) => ({ 'aria-label': `${control} page` })} getItemProps={(n) => ({ 'aria-label': `Page ${n}` })} />
            </Group>
          )}
        </>
      )}
    </Page>
  );
}
