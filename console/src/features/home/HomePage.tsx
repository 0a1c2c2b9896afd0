import { Anchor, Card, Group, List, SimpleGrid, Stack, Text } from '@mantine/core';
import { useQuery } from '@tanstack/react-query';
import { lazy, Suspense, type ReactNode } from 'react';
import { Link } from 'react-router';
import { api, ErrorAlert, Loading, Page, unwrap, useFormat, useSignedIn } from '../../shared';

/** The charts (recharts) are a chunk of their own: the figures show, and Home takes input, before they load. */
const HomeCharts = lazy(() => import('./HomeCharts').then((m) => ({ default: m.HomeCharts })));

export type Dashboard = NonNullable<ReturnType<typeof useDashboard>['data']>;

function useDashboard() {
  return useQuery({ queryKey: ['dashboard'], queryFn: () => unwrap(api.GET('/api/dashboard')) });
}

/** Home: the dashboard (GET /api/dashboard) as cards and charts, each linking to its list. */
export function HomePage() {
  const { can } = useSignedIn();
  const f = useFormat();
  const dashboard = useDashboard();
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
            detail={`${f.number(d.attendance.firstTimeGuests)} first-time guests · ${change(d.attendance.changePct)}`}
            link={can('contacts:read') ? { to: '/people?firstVisit=30', label: 'First-time guests' } : { to: '/attendance', label: 'Open Attendance' }} />
        )}
        {d.giving && (
          <Stat title="Giving" value={f.money(d.giving.total)} detail={`${f.number(d.giving.donors)} donors · ${change(d.giving.changePct)}`}
            link={can('finance:read') ? { to: '/giving', label: 'Open Giving' } : undefined} />
        )}
        {d.groups && (
          <Stat title="Groups" value={f.number(d.groups.count)} detail={`${f.number(d.groups.members)} members · ${f.number(d.groups.pendingRequests)} requests waiting`}
            link={can('groups:read') ? { to: '/groups', label: 'Open Groups' } : undefined} />
        )}
        <Stat title="My open tasks" value={f.number(d.tasks.myOpen)} detail={`${f.number(d.tasks.myOverdue)} overdue · ${f.number(d.tasks.unassigned)} unassigned`}
          link={can('tasks:read') ? { to: '/follow-up', label: 'Open Follow-up' } : undefined} />
        {d.occasions && (
          <Card withBorder padding="md" component="section" aria-label="Birthdays this week">
            <Stack gap={4}>
              <Text size="sm" c="dimmed">Birthdays this week</Text>
              {d.occasions.birthdays.length === 0 ? <Text size="sm">No birthdays in the next 7 days.</Text> : (
                <List listStyleType="none" spacing={2} size="sm">
                  {d.occasions.birthdays.slice(0, 5).map((b) => {
                    const name = `${b.contact.firstName} ${b.contact.lastName}`;
                    return (
                      <List.Item key={b.contact.id}>
                        {can('contacts:read') ? <Anchor component={Link} to={`/people/${b.contact.id}`} size="sm">{name}</Anchor> : name} · {f.date(b.nextOn)}
                      </List.Item>
                    );
                  })}
                </List>
              )}
              {can('contacts:read') && d.occasions.birthdays.length > 5 && (
                <Group justify="flex-end"><Anchor component={Link} to="/people?birthday=7" size="sm">All {d.occasions.birthdays.length} birthdays</Anchor></Group>
              )}
            </Stack>
          </Card>
        )}
      </SimpleGrid>
      {((d.attendance?.series.length ?? 0) > 0 || (d.giving?.byFund.length ?? 0) > 0) && (
        <Suspense fallback={<Loading label="Loading the charts" />}>
          <HomeCharts dashboard={d} />
        </Suspense>
      )}
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
