import { Anchor, Badge, Button, Group, NumberInput, Pagination, Paper, SegmentedControl, Stack, Table, Text, TextInput } from '@mantine/core';
import { useState, type FormEvent } from 'react';
import { Link, useNavigate, useSearchParams } from 'react-router';
import { ApiError, Can, ErrorAlert, Loading, Page, useFormat, useSignedIn } from '../../shared';
import { useBatches, useCreateBatch } from './api';
import { AreaNav } from './AreaNav';
import { useAmountParser } from './money';

/** Batches with their control totals and variance; a new batch opens straight into gift entry. */
export function BatchesListPage() {
  const f = useFormat();
  const { can } = useSignedIn();
  const [params, setParams] = useSearchParams();
  const status = (params.get('status') ?? '') as '' | 'Open' | 'Closed';
  const page = Number(params.get('page') ?? 1);
  const batches = useBatches(status, page);
  const [creating, setCreating] = useState(false);
  const total = batches.data?.total ?? 0;

  return (
    <Page title="Giving" actions={<Can permission="finance:write"><Button onClick={() => setCreating(true)} disabled={creating}>New batch</Button></Can>}>
      <AreaNav />
      {creating && <NewBatch onCancel={() => setCreating(false)} />}
      <SegmentedControl aria-label="Batch status" value={status} onChange={(v) => setParams({ status: v, page: '1' }, { replace: true })}
        data={[{ value: '', label: 'All' }, { value: 'Open', label: 'Open' }, { value: 'Closed', label: 'Closed' }]} style={{ alignSelf: 'flex-start' }} />
      <ErrorAlert error={batches.error} />
      {batches.isPending ? <Loading /> : batches.data && (
        <>
          <Text size="sm">
            {total === 0
              ? (can('finance:write') ? 'No batches yet. Start one with “New batch”: its name, date and the counted total of the envelopes.' : 'No batches yet.')
              : `${f.number(total)} ${total === 1 ? 'batch' : 'batches'}`}
          </Text>
          {batches.data.data.length > 0 && (
            <Table.ScrollContainer minWidth={320}>
              <Table striped highlightOnHover stickyHeader>
                <Table.Thead>
                  <Table.Tr>
                    <Table.Th>Batch</Table.Th>
                    <Table.Th visibleFrom="sm">Date</Table.Th>
                    <Table.Th ta="right">Entered</Table.Th>
                    <Table.Th ta="right" visibleFrom="sm">Control</Table.Th>
                    <Table.Th ta="right">Variance</Table.Th>
                    <Table.Th visibleFrom="sm">Status</Table.Th>
                  </Table.Tr>
                </Table.Thead>
                <Table.Tbody>
                  {batches.data.data.map((b) => (
                    <Table.Tr key={b.id}>
                      <Table.Td><Anchor component={Link} to={`/giving/batches/${b.id}`}>{b.name}</Anchor></Table.Td>
                      <Table.Td visibleFrom="sm">{f.date(b.date)}</Table.Td>
                      <Table.Td ta="right" style={{ whiteSpace: 'nowrap' }}>{f.money(b.totalAmount)} <Text span size="xs" c="dimmed">({f.number(b.contributionCount)})</Text></Table.Td>
                      <Table.Td ta="right" visibleFrom="sm" style={{ whiteSpace: 'nowrap' }}>{f.money(b.controlAmount)} <Text span size="xs" c="dimmed">({f.number(b.controlCount)})</Text></Table.Td>
                      <Table.Td ta="right" style={{ whiteSpace: 'nowrap' }}>
                        <Text span size="sm" c={b.variance === 0 ? undefined : 'red.9'} fw={b.variance === 0 ? undefined : 600}>{f.money(b.variance)}</Text>
                      </Table.Td>
                      <Table.Td visibleFrom="sm"><Badge variant="light" color={b.status === 'Open' ? 'blue' : 'gray'}>{b.status}</Badge></Table.Td>
                    </Table.Tr>
                  ))}
                </Table.Tbody>
              </Table>
            </Table.ScrollContainer>
          )}
          {total > batches.data.limit && (
            <Group justify="center">
              <Pagination total={Math.ceil(total / batches.data.limit)} value={page} onChange={(n) => setParams({ status, page: String(n) })}
                getControlProps={(control) => ({ 'aria-label': `${control} page` })} getItemProps={(n) => ({ 'aria-label': `Page ${n}` })} />
            </Group>
          )}
        </>
      )}
    </Page>
  );
}

function NewBatch({ onCancel }: { onCancel(): void }) {
  const create = useCreateBatch();
  const navigate = useNavigate();
  const amounts = useAmountParser();
  const [name, setName] = useState('');
  const [date, setDate] = useState(() => new Date().toISOString().slice(0, 10));
  const [control, setControl] = useState('');
  const [count, setCount] = useState<string | number>('');
  const [problem, setProblem] = useState<string>();
  const error = create.error instanceof ApiError ? create.error : undefined;

  const submit = (e: FormEvent) => {
    e.preventDefault();
    setProblem(undefined);
    const controlAmount = control.trim() === '' ? 0 : amounts.parse(control);
    if (controlAmount === undefined) return setProblem(`“${control}” is not an amount: type it like 1250 or 1250.50`);
    create.mutate({ name: name.trim(), date, controlAmount, controlCount: Number(count || 0) }, { onSuccess: (b) => navigate(`/giving/batches/${b.id}`) });
  };

  return (
    <Paper withBorder p="sm" radius="md" component="section" aria-label="New batch">
      <form onSubmit={submit} noValidate>
        <Stack gap="xs">
          <Group align="flex-start" gap="xs" wrap="wrap">
            <TextInput label="Name" placeholder="Sunday 9:30 offering" value={name} onChange={(e) => setName(e.currentTarget.value)} required data-autofocus autoFocus
              error={error?.field === 'name' ? error.fieldMessage : undefined} style={{ flex: '2 1 200px' }} />
            <TextInput type="date" label="Date" value={date} onChange={(e) => setDate(e.currentTarget.value)} required error={error?.field === 'date' ? error.fieldMessage : undefined} style={{ flex: '1 1 150px' }} />
            <TextInput label="Control total" description="The counted amount" value={control} onChange={(e) => setControl(e.currentTarget.value)} inputMode="decimal"
              error={problem ?? (error?.field === 'controlAmount' ? error.fieldMessage : undefined)} style={{ flex: '1 1 130px' }} />
            <NumberInput label="Control count" description="Envelopes and checks" value={count} onChange={setCount} min={0} allowDecimal={false} allowNegative={false}
              error={error?.field === 'controlCount' ? error.fieldMessage : undefined} style={{ flex: '1 1 130px' }} />
          </Group>
          {create.error && !error?.field && <ErrorAlert error={create.error} title="The batch was not created" />}
          <Group gap="xs">
            <Button type="submit" loading={create.isPending}>Create and enter gifts</Button>
            <Button variant="default" onClick={onCancel}>Cancel</Button>
          </Group>
        </Stack>
      </form>
    </Paper>
  );
}
