import { Alert, Anchor, Badge, Button, CloseButton, Group, Paper, Select, SimpleGrid, Stack, Table, Text, TextInput, VisuallyHidden } from '@mantine/core';
import { useEffect, useRef, useState, type FormEvent, type KeyboardEvent, type RefObject } from 'react';
import { Link, useParams } from 'react-router';
import { ApiError, ErrorAlert, errorMessage, Loading, Page, useFormat, useSignedIn } from '../../shared';
import { useBatch, useBatchActions, useBatchGifts, useFunds, type Batch, type Fund, type Gift } from './api';
import { AreaNav } from './AreaNav';
import { DonorPicker, type PickedDonor } from './DonorPicker';
import { FundField } from './FundField';
import { useAmountParser } from './money';

const METHODS = ['Cash', 'Check', 'Card', 'BankTransfer', 'MobileMoney', 'Online', 'Other'] as const;
type Method = (typeof METHODS)[number];
const METHOD_LABELS: Record<Method, string> = { Cash: 'Cash', Check: 'Check', Card: 'Card', BankTransfer: 'Bank transfer', MobileMoney: 'Mobile money', Online: 'Online', Other: 'Other' };

const giverName = (g: Gift) => (g.contact ? `${g.contact.firstName} ${g.contact.lastName}`.trim() : 'Anonymous');

/** A batch: its totals against the control totals, keyboard gift entry, the gifts entered, close and reopen. */
export function BatchPage() {
  const id = Number(useParams().id);
  const batch = useBatch(id);
  const gifts = useBatchGifts(id);
  const funds = useFunds();
  const { can } = useSignedIn();
  const donorRef = useRef<HTMLInputElement>(null);
  const [refusal, setRefusal] = useState<unknown>();

  if (batch.isPending || funds.isPending) return <Page title="Batch"><AreaNav /><Loading /></Page>;
  if (!batch.data) return <Page title="Batch"><AreaNav /><ErrorAlert error={batch.error} /><Anchor component={Link} to="/giving">Back to batches</Anchor></Page>;
  const b = batch.data;
  const open = b.status === 'Open';
  const activeFunds = (funds.data?.data ?? []).filter((f) => f.isActive);

  return (
    <Page title={b.name} actions={<BatchActions batch={b} onRefused={setRefusal} />}>
      <AreaNav />
      <Totals batch={b} />
      <Refusal batch={b} refusal={refusal} onClear={() => setRefusal(undefined)} />
      {open && can('finance:write') && (activeFunds.length > 0
        ? <EntryForm donorRef={donorRef} batch={b} funds={activeFunds} lastFundId={gifts.data?.data[0]?.lines[0]?.fund.id} lastMethod={gifts.data?.data[0]?.method} />
        : <Alert color="yellow" title="No fund to give to">Add an active fund first (Admin, or ask whoever manages the funds): every gift goes to a fund.</Alert>)}
      {!open && <Text size="sm" c="dimmed">This batch is closed{b.closedBy?.username ? ` by ${b.closedBy.username}` : ''}: its gifts can no longer change{can('finance:admin') ? ' unless it is reopened' : ''}.</Text>}
      <ErrorAlert error={gifts.error} />
      {gifts.data && <GiftsTable batch={b} gifts={gifts.data.data} total={gifts.data.total} funds={activeFunds} editable={open && can('finance:write')} afterEdit={() => donorRef.current?.focus()} />}
    </Page>
  );
}

/** Entered against control: total, count and variance, always in view while typing. */
function Totals({ batch: b }: { batch: Batch }) {
  const f = useFormat();
  const balanced = b.variance === 0 && b.contributionCount === b.controlCount;
  const short = b.variance > 0;
  const varianceText = b.variance === 0 ? f.money(0) : `${short ? 'Short by' : 'Over by'} ${f.money(Math.abs(b.variance))}`;
  return (
    <Paper withBorder p="sm" radius="md" style={{ position: 'sticky', top: 'calc(var(--app-shell-header-offset, 56px) + 4px)', zIndex: 3 }} aria-label="Batch totals" component="section">
      <SimpleGrid cols={{ base: 2, sm: 4 }} spacing="xs">
        <Stat label="Entered" value={f.money(b.totalAmount)} />
        <Stat label="Gifts" value={`${f.number(b.contributionCount)} of ${f.number(b.controlCount)}`} />
        <Stat label="Control total" value={f.money(b.controlAmount)} />
        <div aria-live="polite">
          <Text size="xs" c="dimmed">Variance</Text>
          <Text fw={700} c={balanced ? 'teal.9' : 'red.9'} data-testid="variance">
            {balanced ? `Balanced (${f.money(0)})` : varianceText}
          </Text>
        </div>
      </SimpleGrid>
      <Text size="xs" c="dimmed" mt={4}>{f.date(b.date)} · <Badge size="xs" variant="light" color={b.status === 'Open' ? 'blue' : 'gray'}>{b.status}</Badge></Text>
    </Paper>
  );
}

function Stat({ label, value }: { label: string; value: string }) {
  return (
    <div>
      <Text size="xs" c="dimmed">{label}</Text>
      <Text fw={700}>{value}</Text>
    </div>
  );
}

/** Close (a variance is refused with the API's message, shown under the totals) and reopen (finance:admin). */
function BatchActions({ batch: b, onRefused }: { batch: Batch; onRefused(error: unknown): void }) {
  const { can } = useSignedIn();
  const actions = useBatchActions(b.id);
  return (
    <Group gap="xs">
      <Anchor component={Link} to="/giving" size="sm">All batches</Anchor>
      {b.status === 'Open' && can('finance:write') && (
        <Button onClick={() => actions.close.mutate(false, { onError: onRefused, onSuccess: () => onRefused(undefined) })} loading={actions.close.isPending}>Close batch</Button>
      )}
      {b.status === 'Closed' && can('finance:admin') && (
        <Button variant="default" onClick={() => actions.reopen.mutate(undefined, { onError: onRefused, onSuccess: () => onRefused(undefined) })} loading={actions.reopen.isPending}>Reopen batch</Button>
      )}
    </Group>
  );
}

/**
 * Why the batch did not close, in the church's money, with the API's own message beneath; a finance
 * administrator may close it as it is. Cleared once the totals change.
 */
function Refusal({ batch: b, refusal, onClear }: { batch: Batch; refusal: unknown; onClear(): void }) {
  const f = useFormat();
  const { can } = useSignedIn();
  const actions = useBatchActions(b.id);
  const key = `${b.status}/${b.variance}/${b.contributionCount}`;
  const [seenAt, setSeenAt] = useState(key);
  useEffect(() => {
    if (refusal === undefined) setSeenAt(key);
  }, [refusal, key]);
  useEffect(() => {
    if (refusal !== undefined && key !== seenAt) onClear();
  }, [key, seenAt, refusal, onClear]);
  if (refusal === undefined) return null;
  const unbalanced = refusal instanceof ApiError && refusal.statusCode === 409 && b.status === 'Open';
  if (!unbalanced) return <ErrorAlert error={refusal} title="Not done" />;
  const gap = b.variance === 0 ? '' : ` ${b.variance > 0 ? 'Short by' : 'Over by'} ${f.money(Math.abs(b.variance))}.`;
  return (
    <Alert color="red" title="The batch does not balance" role="alert">
      <Stack gap="xs">
        <Text size="sm">
          Entered {f.money(b.totalAmount)} in {f.number(b.contributionCount)} {b.contributionCount === 1 ? 'gift' : 'gifts'}; the control is {f.money(b.controlAmount)} in {f.number(b.controlCount)}.{gap}
        </Text>
        <Text size="xs">The server said: {errorMessage(refusal)}</Text>
        {can('finance:admin')
          ? (
            <Group gap="xs">
              <Text size="sm">Fix the gifts, or close it as it is:</Text>
              <Button size="xs" color="red.9" onClick={() => actions.close.mutate(true, { onSuccess: onClear })} loading={actions.close.isPending}>Close anyway</Button>
            </Group>
          )
          : <Text size="sm">Fix the gifts so the totals match, or ask a finance administrator to close it as it is.</Text>}
        <ErrorAlert error={actions.close.error} title="Not closed" />
      </Stack>
    </Alert>
  );
}

interface Line {
  fundId: string | null;
  amount: string;
}

/**
 * One gift per line, from the keyboard: donor, Tab, amount, Enter adds it and puts the cursor back
 * on the donor. The fund and method stay as they were on the last line. "Split" adds a fund and
 * amount to the same gift.
 */
function EntryForm({ donorRef, batch, funds, lastFundId, lastMethod }: { donorRef: RefObject<HTMLInputElement | null>; batch: Batch; funds: Fund[]; lastFundId?: number; lastMethod?: Method }) {
  const f = useFormat();
  const amounts = useAmountParser();
  const { add } = useBatchActions(batch.id);
  const splitRef = useRef<HTMLInputElement>(null);
  const [donor, setDonor] = useState<PickedDonor | null>(null);
  const [search, setSearch] = useState('');
  const [amount, setAmount] = useState('');
  const fallbackFund = funds.some((x) => x.id === lastFundId) ? lastFundId! : funds[0].id;
  const [fundId, setFundId] = useState<string | null>(null);
  const [method, setMethod] = useState<Method | null>(null);
  const [reference, setReference] = useState('');
  const [split, setSplit] = useState<Line[]>([]);
  const [problem, setProblem] = useState<{ field: 'donor' | 'amount' | 'split'; message: string }>();
  const [added, setAdded] = useState('');
  const fund = fundId ?? String(fallbackFund);
  const how = method ?? lastMethod ?? 'Cash';
  const fundOptions = funds.map((x) => ({ value: String(x.id), label: x.name }));

  const submit = (e: FormEvent) => {
    e.preventDefault();
    if (add.isPending) return;
    setProblem(undefined);
    if (search.trim() !== '' && !donor) return setProblem({ field: 'donor', message: 'Pick the donor from the list (ArrowDown, then Enter), or empty the field for an anonymous gift' });
    const first = amounts.parse(amount);
    if (first === undefined) return setProblem({ field: 'amount', message: amount.trim() ? `“${amount}” is not an amount: type it like 25 or 25.50` : 'Type the amount' });
    const more = split.map((l) => ({ fundId: l.fundId, amount: amounts.parse(l.amount) }));
    if (more.some((l) => !l.fundId || l.amount === undefined)) return setProblem({ field: 'split', message: 'Each split line needs a fund and an amount' });
    const lines = [{ fundId: Number(fund), amount: first }, ...more.map((l) => ({ fundId: Number(l.fundId), amount: l.amount! }))];
    const total = lines.reduce((s, l) => s + l.amount, 0);
    const body = {
      contactId: donor?.contactId ?? null, date: batch.date, method: how, batchId: batch.id, reference: reference.trim() || null, amount: total,
      ...(lines.length === 1 ? { fundId: lines[0].fundId } : { lines }),
    };
    add.mutate(body, {
      onSuccess: () => {
        setAdded(`Added ${f.money(total)} from ${donor?.label ?? 'an anonymous giver'}.`);
        setDonor(null);
        setSearch('');
        setAmount('');
        setReference('');
        setSplit([]);
        setFundId(fund);
        donorRef.current?.focus();
      },
    });
  };

  const fieldError = (field: 'donor' | 'amount' | 'split') => (problem?.field === field ? problem.message : undefined);
  const apiError = add.error instanceof ApiError ? add.error : undefined;

  return (
    <Paper withBorder p="sm" radius="md" component="section" aria-labelledby="entry-title">
      <Text id="entry-title" fw={600} mb={4}>Enter gifts</Text>
      <Text size="xs" c="dimmed" mb="xs">Type the donor, ArrowDown and Enter to pick, Tab, the amount, Enter. The fund stays as on the last gift.</Text>
      <form onSubmit={submit} noValidate>
        <Stack gap="xs">
          <Group align="flex-start" gap="xs" wrap="wrap">
            <DonorPicker ref={donorRef} value={donor} search={search} onSearchChange={setSearch} onChange={setDonor} error={fieldError('donor')} />
            <TextInput label="Amount" value={amount} onChange={(e) => setAmount(e.currentTarget.value)} inputMode="decimal" autoComplete="off"
              error={fieldError('amount') ?? (apiError?.field === 'amount' ? apiError.fieldMessage : undefined)} style={{ flex: '1 1 110px' }} />
            <FundField label={split.length ? 'Fund (line 1)' : 'Fund'} options={fundOptions} value={fund} onChange={setFundId} />
            <Select label="Method" data={METHODS.map((m) => ({ value: m, label: METHOD_LABELS[m] }))} value={how} onChange={(v) => v && setMethod(v as Method)} allowDeselect={false} style={{ flex: '1 1 120px' }} />
            <TextInput label="Reference" placeholder="Check no." value={reference} onChange={(e) => setReference(e.currentTarget.value)} autoComplete="off" style={{ flex: '1 1 100px' }} />
            <Group gap={4} mt={24}>
              <Button type="submit" loading={add.isPending}>Add gift</Button>
              <Button variant="subtle" onClick={() => {
                setSplit((s) => [...s, { fundId: null, amount: '' }]);
                setTimeout(() => splitRef.current?.focus(), 0);
              }}>Split</Button>
            </Group>
          </Group>
          {split.map((l, i) => (
            <Group key={i} gap="xs" align="flex-end" wrap="wrap">
              <FundField ref={i === split.length - 1 ? splitRef : undefined} label={`Fund (line ${i + 2})`} options={fundOptions} value={l.fundId} placeholder="Type a fund"
                onChange={(v) => setSplit((s) => s.map((x, j) => (j === i ? { ...x, fundId: v } : x)))} />
              <TextInput label={`Amount (line ${i + 2})`} value={l.amount} inputMode="decimal" autoComplete="off"
                onChange={(e) => { const v = e.currentTarget.value; setSplit((s) => s.map((x, j) => (j === i ? { ...x, amount: v } : x))); }} style={{ flex: '1 1 110px' }} />
              <CloseButton aria-label={`Remove line ${i + 2}`} onClick={() => setSplit((s) => s.filter((_, j) => j !== i))} mb={6} />
            </Group>
          ))}
          {fieldError('split') && <Text size="sm" c="red.8" role="alert">{fieldError('split')}</Text>}
          {add.error && !(apiError?.field === 'amount') && <ErrorAlert error={add.error} title="The gift was not added" />}
          <Text size="sm" c="dimmed" aria-live="polite">{added}</Text>
        </Stack>
      </form>
    </Paper>
  );
}

/** The batch's gifts, newest first; each can be fixed (amount, fund) or deleted while the batch is open. */
function GiftsTable({ batch, gifts, total, funds, editable, afterEdit }: { batch: Batch; gifts: Gift[]; total: number; funds: Fund[]; editable: boolean; afterEdit(): void }) {
  const f = useFormat();
  const [editing, setEditing] = useState<number>();
  if (gifts.length === 0) {
    return <Text size="sm" c="dimmed">No gifts in this batch yet.{editable ? ' Enter the first one above: type the donor’s name, then the amount, then Enter.' : ''}</Text>;
  }
  return (
    <Stack gap={4}>
      <Text size="sm">{total > gifts.length ? `The latest ${gifts.length} of ${f.number(total)} gifts` : `${f.number(total)} ${total === 1 ? 'gift' : 'gifts'}`}, newest first</Text>
      <Table.ScrollContainer minWidth={320}>
        <Table striped stickyHeader aria-label={`Gifts in ${batch.name}`}>
          <Table.Thead>
            <Table.Tr>
              <Table.Th>Donor</Table.Th>
              <Table.Th>Fund</Table.Th>
              <Table.Th ta="right">Amount</Table.Th>
              <Table.Th visibleFrom="sm">Method</Table.Th>
              {editable && <Table.Th><VisuallyHidden>Actions</VisuallyHidden></Table.Th>}
            </Table.Tr>
          </Table.Thead>
          <Table.Tbody>
            {gifts.map((g) => (editing === g.id
              ? <EditRow key={g.id} batchId={batch.id} gift={g} funds={funds} done={() => {
                setEditing(undefined);
                setTimeout(afterEdit, 0);
              }} />
              : (
                <Table.Tr key={g.id}>
                  <Table.Td>{giverName(g)}</Table.Td>
                  <Table.Td>{g.lines.map((l) => l.fund.name).join(', ')}</Table.Td>
                  <Table.Td ta="right" style={{ whiteSpace: 'nowrap' }}>{f.money(g.amount)}</Table.Td>
                  <Table.Td visibleFrom="sm">{METHOD_LABELS[g.method]}{g.reference ? ` · ${g.reference}` : ''}</Table.Td>
                  {editable && (
                    <Table.Td>
                      <Button size="compact-sm" variant="subtle" onClick={() => setEditing(g.id)} aria-label={`Fix gift from ${giverName(g)}, ${f.money(g.amount)}`}>Fix</Button>
                    </Table.Td>
                  )}
                </Table.Tr>
              )))}
          </Table.Tbody>
        </Table>
      </Table.ScrollContainer>
    </Stack>
  );
}

/** A gift being fixed in place: each line's fund and amount; Enter saves, Escape leaves it as it was. */
function EditRow({ batchId, gift, funds, done }: { batchId: number; gift: Gift; funds: Fund[]; done(): void }) {
  const amounts = useAmountParser();
  const { edit, remove } = useBatchActions(batchId);
  const [lines, setLines] = useState<Line[]>(gift.lines.map((l) => ({ fundId: String(l.fund.id), amount: amounts.text(l.amount) })));
  const [problem, setProblem] = useState<string>();
  const first = useRef<HTMLInputElement>(null);
  useEffect(() => {
    first.current?.focus();
    first.current?.select();
  }, []);
  const fundOptions = [...funds.map((x) => ({ value: String(x.id), label: x.name })), ...gift.lines.filter((l) => !funds.some((x) => x.id === l.fund.id)).map((l) => ({ value: String(l.fund.id), label: l.fund.name }))];
  const name = giverName(gift);

  const save = (e?: FormEvent) => {
    e?.preventDefault();
    setProblem(undefined);
    const parsed = lines.map((l) => ({ fundId: Number(l.fundId), amount: amounts.parse(l.amount) }));
    if (parsed.some((l) => l.amount === undefined)) return setProblem('Type each amount like 25 or 25.50');
    const total = parsed.reduce((s, l) => s + l.amount!, 0);
    const body = parsed.length === 1 ? { amount: total, fundId: parsed[0].fundId } : { amount: total, lines: parsed.map((l) => ({ fundId: l.fundId, amount: l.amount! })) };
    edit.mutate({ giftId: gift.id, body }, { onSuccess: done });
  };
  const keys = (e: KeyboardEvent) => {
    if (e.key === 'Escape') {
      e.preventDefault();
      done();
    }
  };

  return (
    <Table.Tr onKeyDown={keys}>
      <Table.Td colSpan={5}>
        <form onSubmit={save} aria-label={`Fix the gift from ${name}`}>
          <Stack gap={6}>
            <Text size="sm" fw={600}>Fix the gift from {name}</Text>
            {lines.map((l, i) => (
              <Group key={i} gap="xs" align="flex-end" wrap="wrap">
                <TextInput ref={i === 0 ? first : undefined} label={lines.length > 1 ? `Amount (line ${i + 1})` : 'Amount'} value={l.amount} inputMode="decimal" autoComplete="off"
                  onChange={(e) => { const v = e.currentTarget.value; setLines((s) => s.map((x, j) => (j === i ? { ...x, amount: v } : x))); }} style={{ flex: '1 1 110px' }} />
                <FundField label={lines.length > 1 ? `Fund (line ${i + 1})` : 'Fund'} options={fundOptions} value={l.fundId}
                  onChange={(v) => setLines((s) => s.map((x, j) => (j === i ? { ...x, fundId: v } : x)))} />
              </Group>
            ))}
            {problem && <Text size="sm" c="red.8" role="alert">{problem}</Text>}
            <ErrorAlert error={edit.error ?? remove.error} title="Not saved" />
            <Group gap="xs">
              <Button type="submit" size="xs" loading={edit.isPending}>Save</Button>
              <Button size="xs" variant="default" onClick={done}>Cancel</Button>
              <Button size="xs" variant="subtle" color="red" onClick={() => remove.mutate(gift.id, { onSuccess: done })} loading={remove.isPending}>Delete gift</Button>
            </Group>
          </Stack>
        </form>
      </Table.Td>
    </Table.Tr>
  );
}

export { METHOD_LABELS, type Method };
