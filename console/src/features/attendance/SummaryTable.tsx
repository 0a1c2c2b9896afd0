import { Table } from '@mantine/core';
import { useFormat } from '../../shared';
import type { Summary } from './api';

/** The summary's numbers as the API gives them: a row a period, then the totals. */
export function SummaryTable({ summary: d }: { summary: Summary }) {
  const f = useFormat();
  return (
    <Table.ScrollContainer minWidth={560}>
      <Table striped stickyHeader>
        <Table.Caption>Attendance by {d.interval === 'month' ? 'month' : 'week'}, {f.date(d.from)} – {f.date(d.to)}</Table.Caption>
        <Table.Thead>
          <Table.Tr>
            <Table.Th>{d.interval === 'month' ? 'Month from' : 'Week from'}</Table.Th>
            <Table.Th ta="right">Sessions</Table.Th>
            <Table.Th ta="right">Present</Table.Th>
            <Table.Th ta="right">Guests</Table.Th>
            <Table.Th ta="right">First time</Table.Th>
            <Table.Th ta="right">Headcount</Table.Th>
            <Table.Th ta="right">Average present</Table.Th>
          </Table.Tr>
        </Table.Thead>
        <Table.Tbody>
          {d.data.map((p) => (
            <Table.Tr key={p.period}>
              <Table.Th scope="row" fw={400}>{f.date(p.period)}</Table.Th>
              <Table.Td ta="right">{f.number(p.sessions)}</Table.Td>
              <Table.Td ta="right">{f.number(p.present)}</Table.Td>
              <Table.Td ta="right">{f.number(p.guests)}</Table.Td>
              <Table.Td ta="right">{f.number(p.firstTime)}</Table.Td>
              <Table.Td ta="right">{f.number(p.headcount)}</Table.Td>
              <Table.Td ta="right">{f.number(p.averagePresent)}</Table.Td>
            </Table.Tr>
          ))}
        </Table.Tbody>
        <Table.Tfoot>
          <Table.Tr fw={700}>
            <Table.Th scope="row">Total</Table.Th>
            <Table.Td ta="right">{f.number(d.totals.sessions)}</Table.Td>
            <Table.Td ta="right">{f.number(d.totals.present)}</Table.Td>
            <Table.Td ta="right">{f.number(d.totals.guests)}</Table.Td>
            <Table.Td ta="right">{f.number(d.totals.firstTime)}</Table.Td>
            <Table.Td ta="right">{f.number(d.totals.headcount)}</Table.Td>
            <Table.Td />
          </Table.Tr>
        </Table.Tfoot>
      </Table>
    </Table.ScrollContainer>
  );
}
