import { Group, Loader, Stack, Title } from '@mantine/core';
import { useEffect, type ReactNode } from 'react';

/** A screen: its title (also the document's), actions beside it, then the content. */
export function Page({ title, actions, children }: { title: string; actions?: ReactNode; children: ReactNode }) {
  useEffect(() => {
    document.title = `${title} · Parish`;
  }, [title]);
  return (
    <Stack gap="md">
      <Group justify="space-between" wrap="wrap">
        <Title order={1} size="h2">{title}</Title>
        {actions}
      </Group>
      {children}
    </Stack>
  );
}

export function Loading({ label = 'Loading' }: { label?: string }) {
  return (
    <Group justify="center" p="xl">
      <Loader role="status" aria-label={label} />
    </Group>
  );
}
