import { Group, NavLink } from '@mantine/core';
import { Link, useLocation } from 'react-router';

const LINKS = [
  { to: '/giving', label: 'Batches', exact: true, also: '/giving/batches' },
  { to: '/giving/contributions', label: 'Contributions' },
  { to: '/giving/statements', label: 'Statements' },
  { to: '/giving/pledges', label: 'Pledges' },
];

/** The giving area's own links, above each screen. */
export function AreaNav() {
  const { pathname } = useLocation();
  const active = (l: (typeof LINKS)[number]) => (l.exact ? pathname === l.to || pathname === `${l.to}/` || (!!l.also && pathname.startsWith(l.also)) : pathname.startsWith(l.to));
  return (
    <Group component="nav" aria-label="Giving" gap={4} wrap="wrap">
      {LINKS.map((l) => (
        <NavLink key={l.to} component={Link} to={l.to} label={l.label} active={active(l)} aria-current={active(l) ? 'page' : undefined}
          w="auto" py={6} px="sm" style={{ borderRadius: 'var(--mantine-radius-sm)' }} />
      ))}
    </Group>
  );
}
