import { BarChart, LineChart } from '@mantine/charts';
import { Anchor, Card, Group, SimpleGrid, Stack, Text, Title } from '@mantine/core';
import { useQuery } from '@tanstack/react-query';
import type { ReactNode } from 'react';
import { Link } from 'react-router';
import { api, ErrorAlert, Loading, Page, unwrap, useFormat, useSignedIn } from '../../shared';

/** Home: the dashboard (GET /api/dashboard) as cards and charts, each linking to its list. */
export function HomePage() {
  const { can } = useSignedIn();
  const f = useFormat();
  const dashboard = useQuery({ queryKey: ['dashboard'], queryFn: () => unwrap(api.GET('/api/dashboard')) });
  if (dashboard.isPending) return <Page title="Home"><Loading /></Page>;
  if (dashboard.isError) return <Page title="Home"><ErrorAlert error={dashboard.error} /></Page>;
  const d = dashboard.data;
  const change = (pct: number | null | undefined) => (pct === null || pct === undefined ? 'no earlier figure' : `${f.percent(pct)} on the previous period`);

  return (
    <Page title="Home">
      <Text c="dimmed" size="sm">{f.date(d.period.from)} – {f.date(d.period.to)}</Text>
      <SimpleGrid cols={{ base: 1, xs: 2, lg: 4 }}>
        {d.people && (
          <Stat title="People" value={f.number(d.people.total)} detail={`${f.number(d.people.newInPeriod)} new · ${change(d.people.changePct)}`}
            link={can('contacts:read') ? { to: '/people', label: 'Open People' } : undefined} />
        )}
        {d.attendance && (
          <Stat title="Average attendance" value={f.number(Math.round(d.attendance.averagePresent))}
            detail={`${f.number(d.attendance.firstTimeGuests)} first-time guests · ${change(d.attendance.changePct)}`} />
        )}
        {d.giving && (
          <Stat title="Giving" value={f.money(d.giving.total)} detail={`${f.number(d.giving.donors)} donors · ${change(d.giving.changePct)}`} />
        )}
        {d.groups && (
          <Stat title="Groups" value={f.number(d.groups.count)} detail={`${f.number(d.groups.members)} members · ${f.number(d.groups.pendingRequests)} requests waiting`}
            link={can('groups:read') ? { to: '/groups', label: 'Open Groups' } : undefined} />
        )}
        <Stat title="My open tasks" value={f.number(d.tasks.myOpen)} detail={`${f.number(d.tasks.myOverdue)} overdue · ${f.number(d.tasks.unassigned)} unassigned`} />
      </SimpleGrid>
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
    </Page>
  );
}

function Stat({ title, value, detail, link }: { title: string; value: ReactNode; detail: string; link?: { to: string; label: string } }) {
  return (
    <Card withBorder padding="md">
      <Stack gap={4}>
        <Text size="sm" c="dimmed">{title}</Text>
        <Text fz={28} fw={700}>{value}</Text>
        <Text size="sm">{detail}</Text>
        {link && (
          <Group justify="flex-end">
            <Anchor component={Link} to={link.to} size="sm">{link.label}</Anchor>
          </Group>
        )}
      </Stack>
    </Card>
  );
}
