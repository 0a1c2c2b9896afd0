import '@mantine/charts/styles.css';
import { BarChart, LineChart } from '@mantine/charts';
import { Card, SimpleGrid, Title } from '@mantine/core';
import { useFormat } from '../../shared';
import type { Dashboard } from './HomePage';

/** Home's charts: attendance by week and giving by fund. */
export function HomeCharts({ dashboard: d }: { dashboard: Dashboard }) {
  const f = useFormat();
  return (
    <SimpleGrid cols={{ base: 1, md: 2 }}>
      {d.attendance && d.attendance.series.length > 0 && (
        <Card withBorder>
          <Title order={2} size="h4" mb="sm">Attendance by week</Title>
          <LineChart h={220} data={d.attendance.series.map((x) => ({ ...x, period: f.date(x.period) }))} dataKey="period" series={[{ name: 'present', label: 'Present', color: 'indigo.6' }]} />
        </Card>
      )}
      {d.giving && d.giving.byFund.length > 0 && (
        <Card withBorder>
          <Title order={2} size="h4" mb="sm">Giving by fund</Title>
          <BarChart h={220} data={d.giving.byFund.map((x) => ({ fund: x.fund.name, amount: f.major(x.amount) }))} dataKey="fund"
            series={[{ name: 'amount', label: 'Amount', color: 'teal.6' }]} valueFormatter={f.moneyMajor} />
        </Card>
      )}
    </SimpleGrid>
  );
}
