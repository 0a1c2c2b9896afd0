import { Button, Group, NumberInput, SimpleGrid, Stack, Text } from '@mantine/core';
import { notifications } from '@mantine/notifications';
import { useEffect, useState, type FormEvent } from 'react';
import { ErrorAlert, useFormat } from '../../shared';
import { useService, useSessionActions, type SessionDetail } from './api';

/** The anonymous tallies of a service's session, by the service's headcount types (and any the session already has). */
export function Headcounts({ session, write }: { session: SessionDetail; write: boolean }) {
  const f = useFormat();
  const service = useService(session.service?.id);
  const { headcounts } = useSessionActions(session.id);
  const types = [...new Set([...(service.data?.headcountTypes ?? []), ...session.headcounts.map((h) => h.type)])];
  const saved = () => Object.fromEntries(session.headcounts.map((h) => [h.type, h.count]));
  const [counts, setCounts] = useState<Record<string, number | ''>>(saved);
  useEffect(() => setCounts(saved()), [session.headcounts]); // eslint-disable-line react-hooks/exhaustive-deps

  const submit = (e: FormEvent) => {
    e.preventDefault();
    const body = types.filter((t) => counts[t] !== undefined && counts[t] !== '').map((t) => ({ type: t, count: Number(counts[t]) }));
    headcounts.mutate(body, { onSuccess: () => notifications.show({ color: 'green', message: 'Headcounts saved' }) });
  };

  if (service.isPending && session.service) return <Text c="dimmed">Loading the headcount types…</Text>;
  if (types.length === 0) return <Text c="dimmed">This service counts no headcounts. Its headcount types are set on the service.</Text>;
  return (
    <form onSubmit={submit} noValidate>
      <Stack gap="sm">
        <SimpleGrid cols={{ base: 2, sm: 3 }} spacing="sm">
          {types.map((t) => (
            <NumberInput key={t} label={t} min={0} max={1_000_000} allowDecimal={false} allowNegative={false} readOnly={!write}
              value={counts[t] ?? ''} onChange={(v) => setCounts({ ...counts, [t]: v === '' ? '' : Number(v) })} />
          ))}
        </SimpleGrid>
        <Text size="sm">Total counted: <b>{f.number(session.headcountTotal)}</b></Text>
        <ErrorAlert error={headcounts.error} title="Headcounts not saved" />
        {write && <Group><Button type="submit" mih={44} variant="light" loading={headcounts.isPending}>Save headcounts</Button></Group>}
      </Stack>
    </form>
  );
}
