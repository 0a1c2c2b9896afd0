import { useDraggable } from '@dnd-kit/core';
import { Anchor, Badge, Button, Group, Paper, Stack, Text } from '@mantine/core';
import { useEffect, useRef } from 'react';
import { Link } from 'react-router';
import { useFormat } from '../../shared';
import type { BoardCard } from './api';

export type Focus = { cardId: number; direction: 'next' | 'previous' };

export const contactName = (card: BoardCard | undefined) => (card ? `${card.contact.firstName} ${card.contact.lastName}` : 'The card');

/** What a card shows: who, the open task (linked), its assignee and due date. */
export function CardBody({ card, lifted = false }: { card: BoardCard; lifted?: boolean }) {
  const f = useFormat();
  const assignee = card.task?.assignee ?? card.assignee;
  return (
    <Stack gap={2}>
      {card.task && !lifted
        ? <Anchor component={Link} to={`/follow-up/tasks/${card.task.id}`} fw={600}>{contactName(card)}</Anchor>
        : <Text fw={600}>{contactName(card)}</Text>}
      <Text size="sm">{assignee ? `Assigned to ${assignee.username}` : 'Not assigned'}</Text>
      {card.task?.dueDate && (
        <Group gap={4}>
          <Text size="sm">Due {f.date(card.task.dueDate)}</Text>
          {card.task.overdue && <Badge color="red" variant="light" size="sm">Overdue</Badge>}
        </Group>
      )}
    </Stack>
  );
}

/**
 * A card on the board, dragged with the mouse or a finger (not from the keyboard: its Back and Next
 * buttons do that, and keep the focus on the card after it moves).
 */
export function BoardCardView({ card, stepId, canMove, previous, next, focus, onMove }: {
  card: BoardCard;
  stepId: number;
  canMove: boolean;
  previous?: string;
  next?: string;
  focus?: Focus;
  onMove(direction: 'next' | 'previous'): void;
}) {
  const { setNodeRef, listeners, isDragging } = useDraggable({ id: `card-${card.id}`, data: { card, from: stepId }, disabled: !canMove });
  const back = useRef<HTMLButtonElement>(null);
  const forward = useRef<HTMLButtonElement>(null);
  useEffect(() => {
    if (!focus) return;
    const wanted = focus.direction === 'next' ? forward.current ?? back.current : back.current ?? forward.current;
    wanted?.focus();
  }, [focus]);
  const name = contactName(card);

  return (
    <Paper ref={setNodeRef} {...listeners} withBorder shadow="xs" p="xs" data-card={name}
      style={{ opacity: isDragging ? 0.4 : 1, cursor: canMove ? 'grab' : undefined }} aria-label={`${name}, ${card.step.name}`} component="article">
      <CardBody card={card} />
      {canMove && (
        <Group gap={4} mt={6} justify="space-between">
          <Button ref={back} size="compact-xs" variant="default" disabled={!previous} onClick={() => onMove('previous')}
            aria-label={previous ? `Move ${name} back to ${previous}` : `${name} is at the first step`}>Back</Button>
          <Button ref={forward} size="compact-xs" variant="light" onClick={() => onMove('next')}
            aria-label={next ? `Move ${name} on to ${next}` : `Finish ${name}'s follow-up`}>{next ? 'Next' : 'Finish'}</Button>
        </Group>
      )}
    </Paper>
  );
}
