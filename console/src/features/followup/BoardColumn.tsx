import { useDroppable } from '@dnd-kit/core';
import { Badge, Group, Paper, Stack, Text, Title } from '@mantine/core';
import type { ReactNode } from 'react';
import type { BoardStep } from './api';

/** One step of a board: its name, how many people are at it (and how many overdue), and their cards. */
export function BoardColumn({ step, canMove, children }: { step: BoardStep; canMove: boolean; children: ReactNode }) {
  const { setNodeRef, isOver } = useDroppable({ id: `step-${step.id}`, data: { stepId: step.id } });
  return (
    <Paper ref={setNodeRef} component="section" aria-label={step.name} withBorder p="sm" flex={{ base: 'none', md: '1 0 190px' }} bg={isOver ? 'var(--mantine-primary-color-light)' : 'var(--mantine-color-default-hover)'}
      style={{ outline: isOver ? '2px dashed var(--mantine-primary-color-filled)' : undefined }}>
      <Stack gap="xs">
        <Stack gap={4}>
          <Title order={2} size="h5">{step.name}</Title>
          <Group gap={4}>
            <Badge variant="light">{step.count} {step.count === 1 ? 'person' : 'people'}</Badge>
            {step.overdue > 0 && <Badge color="red.8" variant="filled">{step.overdue} overdue</Badge>}
          </Group>
        </Stack>
        {step.cards.length === 0 && <Text size="sm" c="dimmed">No one at this step.{canMove ? ' Drag a card here.' : ''}</Text>}
        {children}
        {step.count > step.cards.length && <Text size="xs" c="dimmed">The first {step.cards.length} of {step.count}.</Text>}
      </Stack>
    </Paper>
  );
}
