import { Button, Group } from '@mantine/core';
import { Link, useLocation } from 'react-router';

const LINKS = [
  { to: '/follow-up', label: 'Boards' },
  { to: '/follow-up/my-tasks', label: 'My tasks' },
];

/** The area's two lists, the current one marked. */
export function FollowupNav() {
  const { pathname } = useLocation();
  return (
    <Group gap="xs" component="nav" aria-label="Follow-up">
      {LINKS.map((l) => {
        const current = pathname === l.to;
        const within = current || (l.to === '/follow-up' && pathname.startsWith('/follow-up/boards'));
        return (
          <Button key={l.to} component={Link} to={l.to} size="xs" variant={within ? 'filled' : 'default'} aria-current={current ? 'page' : undefined}>
            {l.label}
          </Button>
        );
      })}
    </Group>
  );
}
