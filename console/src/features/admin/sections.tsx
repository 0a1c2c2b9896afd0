import { Anchor, Badge, Button, Card, Group, SimpleGrid, Stack, Text } from '@mantine/core';
import type { ReactNode } from 'react';
import { Link, useLocation } from 'react-router';
import { Page, useSignedIn } from '../../shared';

/** The admin screens, each opened by its permission (the API refuses the rest anyway). */
export const SECTIONS = [
  { path: 'users', label: 'Users', permission: 'users:read', about: 'Who can sign in: invite people, send an invitation again, disable or enable an account.' },
  { path: 'roles', label: 'Roles', permission: 'roles:read', about: 'What each role may do, as a table of permissions; create a role.' },
  { path: 'settings', label: 'Church settings', permission: 'roles:write', about: 'The church’s name, time zone, currency and self-registration.' },
  { path: 'webhooks', label: 'Webhooks', permission: 'webhooks:write', about: 'Send changes to other systems; see each delivery and send a test ping.' },
  { path: 'audit', label: 'Audit log', permission: 'audit:read', about: 'Every change: who did what, and when.' },
  { path: 'import', label: 'Import people', permission: 'contacts:write', about: 'Bring people and families in from a CSV file (Planning Center, Breeze, ChurchCRM, Elvanto or Parish’s own columns).' },
] as const;

export type SectionPath = (typeof SECTIONS)[number]['path'];

export function useSections() {
  const { can } = useSignedIn();
  return SECTIONS.filter((s) => can(s.permission));
}

/** The admin sections as a row of links, the current one marked. */
function AdminNav() {
  const sections = useSections();
  const { pathname } = useLocation();
  return (
    <Group gap="xs" component="nav" aria-label="Admin sections" wrap="wrap">
      {sections.map((s) => {
        const current = pathname === `/admin/${s.path}` || pathname.startsWith(`/admin/${s.path}/`);
        return (
          <Button key={s.path} component={Link} to={`/admin/${s.path}`} size="compact-sm" variant={current ? 'filled' : 'default'} aria-current={current ? 'page' : undefined}>
            {s.label}
          </Button>
        );
      })}
    </Group>
  );
}

/** An admin screen: the sections above its title. */
export function AdminPage({ title, actions, children }: { title: string; actions?: ReactNode; children: ReactNode }) {
  return (
    <Stack gap="md">
      <AdminNav />
      <Page title={title} actions={actions}>{children}</Page>
    </Stack>
  );
}

/** /admin: what each permitted section is for. */
export function AdminIndexPage() {
  const sections = useSections();
  return (
    <Page title="Admin">
      <SimpleGrid cols={{ base: 1, sm: 2, lg: 3 }}>
        {sections.map((s) => (
          <Card key={s.path} withBorder padding="md">
            <Anchor component={Link} to={`/admin/${s.path}`} fw={700} size="lg">{s.label}</Anchor>
            <Text size="sm" mt={4}>{s.about}</Text>
          </Card>
        ))}
      </SimpleGrid>
    </Page>
  );
}

/** A section opened without its permission. */
export function SectionGate({ permission, children }: { permission: string; children: ReactNode }) {
  const { can } = useSignedIn();
  if (can(permission)) return <>{children}</>;
  return (
    <Page title="Not available to you">
      <Text>Your role does not include this part of Admin. An administrator can change your roles.</Text>
    </Page>
  );
}

/** A status badge whose text keeps AA contrast on its light background (axe color-contrast). */
export function Tag({ color = 'gray', size, children }: { color?: string; size?: 'xs' | 'sm'; children: ReactNode }) {
  return <Badge variant="dot" color={color} size={size} styles={{ root: { color: "var(--mantine-color-text)", minWidth: "max-content" } }}>{children}</Badge>;
}
