import { AppShell, Avatar, Burger, Group, Menu, NavLink, Text, UnstyledButton } from '@mantine/core';
import { useDisclosure } from '@mantine/hooks';
import { lazy, Suspense } from 'react';
import { Link, Outlet, useLocation, useNavigate } from 'react-router';
import { useSession, useSignedIn } from '../shared';
import { AREAS, mayOpen } from './routes';

/** The header's search: its own chunk, loaded with the shell, not with the sign-in screen. */
const GlobalSearch = lazy(() => import('../shared/search').then((m) => ({ default: m.GlobalSearch })));

/** The frame of every signed-in screen: the church and the user's menu on top, the areas on the left. */
export function ShellFrame() {
  const { user, tenant, can } = useSignedIn();
  const { signOut } = useSession();
  const [opened, { toggle, close }] = useDisclosure();
  const location = useLocation();
  const navigate = useNavigate();
  const areas = AREAS.filter((a) => mayOpen(can, a.permission));
  const current = (path: string) => (path === '/' ? location.pathname === '/' : location.pathname.startsWith(path));

  return (
    <AppShell header={{ height: 56 }} navbar={{ width: 220, breakpoint: 'sm', collapsed: { mobile: !opened } }} padding="md">
      <AppShell.Header>
        <Group h="100%" px="md" justify="space-between" wrap="nowrap">
          <Group gap="sm" wrap="nowrap" miw={0} style={{ flexShrink: 1 }}>
            <Burger opened={opened} onClick={toggle} hiddenFrom="sm" size="sm" aria-label="Open the navigation" />
            <Text fw={700} truncate="end" visibleFrom="xs" maw={220}>{tenant.name}</Text>
          </Group>
          <Group role="search" flex={1} justify="center" miw={0} wrap="nowrap">
            <Suspense fallback={null}><GlobalSearch /></Suspense>
          </Group>
          <Menu position="bottom-end" withinPortal>
            <Menu.Target>
              <UnstyledButton title="Your account">
                <Group gap="xs" wrap="nowrap">
                  <Avatar size="sm" radius="xl" color="indigo" aria-hidden>{user.username.slice(0, 2).toUpperCase()}</Avatar>
                  <Text size="sm" maw={140} truncate="end" visibleFrom="sm">{user.username}</Text>
                </Group>
              </UnstyledButton>
            </Menu.Target>
            <Menu.Dropdown>
              <Menu.Label>{user.roles.join(', ') || 'No role'}</Menu.Label>
              <Menu.Item onClick={async () => { await signOut(); navigate('/sign-in', { replace: true }); }}>Sign out</Menu.Item>
            </Menu.Dropdown>
          </Menu>
        </Group>
      </AppShell.Header>
      <AppShell.Navbar p="xs" component="nav" aria-label="Areas">
        <Text fw={700} hiddenFrom="xs" px="sm" py="xs">{tenant.name}</Text>
        {areas.map((a) => (
          <NavLink key={a.path} component={Link} to={a.path} label={a.label} active={current(a.path)} onClick={close}
            aria-current={current(a.path) ? 'page' : undefined} />
        ))}
      </AppShell.Navbar>
      <AppShell.Main>
        <Outlet />
      </AppShell.Main>
    </AppShell>
  );
}
