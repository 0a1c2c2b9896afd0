import { Group, NavLink } from '@mantine/core';
import { Link, useLocation } from 'react-router';

const LINKS = [
  { to: '/attendance', label: 'This Sunday', exact: true },
  { to: '/attendance/sessions', label: 'Sessions' },
  { to: '/attendance/summary', label: 'Summary' },
  { to: '/attendance/absentees', label: 'Absentees' },
];

/** The attendance area's own links (its four screens), above each screen. */
export function AreaNav() {
  const { pathname } = useLocation();
  const active = (l: (typeof LINKS)[number]) => (l.exact ? pathname === l.to || pathname === `${l.to}/` : pathname.startsWith(l.to));
  return (
    <Group component="nav" aria-label="Attendance" gap={4} wrap="wrap">
      {LINKS.map((l) => (
        <NavLink key={l.to} component={Link} to={l.to} label={l.label} active={active(l)} aria-current={active(l) ? 'page' : undefined}
          w="auto" py={6} px="sm" style={{ borderRadius: 'var(--mantine-radius-sm)' }} />
      ))}
    </Group>
  );
}
