import { DndContext, DragOverlay, MouseSensor, TouchSensor, useSensor, useSensors, type Announcements, type DragEndEvent, type DragStartEvent } from '@dnd-kit/core';
import { Anchor, Box, Flex, Group, Text, VisuallyHidden } from '@mantine/core';
import { useState } from 'react';
import { Link, useParams } from 'react-router';
import { ErrorAlert, Loading, Page, useSignedIn } from '../../shared';
import { BoardCardView, CardBody, contactName, type Focus } from './BoardCard';
import { BoardColumn } from './BoardColumn';
import { FollowupNav } from './FollowupNav';
import { targetStep, useBoard, useMoveCard, type Board, type BoardCard, type Move } from './api';

type Dragged = { card: BoardCard; from: number };

/** What a screen reader hears while a card is dragged with the mouse or a finger. */
function announcements(board: Board): Announcements {
  const card = (data: unknown) => contactName((data as Dragged | undefined)?.card);
  const step = (id: unknown) => board.steps.find((s) => `step-${s.id}` === id)?.name ?? 'nowhere';
  return {
    onDragStart: ({ active }) => `Picked up ${card(active.data.current)}.`,
    onDragOver: ({ active, over }) => `${card(active.data.current)} is over ${over ? step(over.id) : 'no step'}.`,
    onDragEnd: ({ active, over }) => (over ? `${card(active.data.current)} dropped on ${step(over.id)}.` : `${card(active.data.current)} put back.`),
    onDragCancel: ({ active }) => `${card(active.data.current)} put back.`,
  };
}

/** A pipeline's board: a column per step; cards move by dragging or by their Back / Next buttons. */
export function BoardPage() {
  const id = Number(useParams().id);
  const board = useBoard(id);
  const move = useMoveCard(id);
  const canMove = useSignedIn().can('tasks:write');
  const [dragging, setDragging] = useState<Dragged>();
  const [status, setStatus] = useState('');
  const [focus, setFocus] = useState<Focus>();
  const sensors = useSensors(
    useSensor(MouseSensor, { activationConstraint: { distance: 6 } }),
    useSensor(TouchSensor, { activationConstraint: { delay: 250, tolerance: 8 } }),
  );

  const run = (m: Move, focusAfter?: Focus) => {
    const data = board.data!;
    const to = targetStep(data, m);
    if (to === m.from) return;
    const where = to === undefined ? 'finished the pipeline' : `moved to ${data.steps.find((s) => s.id === to)?.name}`;
    setFocus(focusAfter);
    setStatus('');
    move.mutate(m, {
      onSuccess: () => setStatus(`${contactName(m.card)} ${where}.`),
      onError: () => setStatus(`${contactName(m.card)} was not moved.`),
    });
  };

  const onDragStart = ({ active }: DragStartEvent) => setDragging(active.data.current as Dragged);
  const onDragEnd = ({ active, over }: DragEndEvent) => {
    setDragging(undefined);
    const d = active.data.current as Dragged;
    const stepId = over?.data.current?.stepId as number | undefined;
    if (stepId !== undefined && stepId !== d.from) run({ card: d.card, from: d.from, stepId });
  };

  const title = board.data?.pipeline.name ?? 'Board';
  return (
    <Page title={title} actions={<FollowupNav />}>
      <Group gap="xs"><Anchor component={Link} to="/follow-up" size="sm">All boards</Anchor></Group>
      <ErrorAlert error={board.error} />
      <ErrorAlert error={move.error} title="The card was not moved" />
      <VisuallyHidden role="status" aria-live="polite">{status}</VisuallyHidden>
      {board.isPending && <Loading />}
      {board.data && (
        <>
          <Text size="sm" c="dimmed">
            {canMove ? 'Drag a card to another step, or use its Back and Next buttons. Moving a card finishes the task of the step it leaves and opens the next one.' : 'You can see the board; moving cards needs the tasks:write permission.'}
          </Text>
          <DndContext sensors={sensors} onDragStart={onDragStart} onDragEnd={onDragEnd} onDragCancel={() => setDragging(undefined)}
            accessibility={{ announcements: announcements(board.data), screenReaderInstructions: { draggable: 'Use the Back and Next buttons of a card to move it from the keyboard.' } }}>
            <Flex gap="md" direction={{ base: 'column', md: 'row' }} align={{ base: 'stretch', md: 'flex-start' }} style={{ overflowX: 'auto' }} pb="xs">
              {board.data.steps.map((step, i) => (
                <BoardColumn key={step.id} step={step} canMove={canMove}>
                  {step.cards.map((card) => (
                    <BoardCardView key={card.id} card={card} stepId={step.id} canMove={canMove} focus={focus?.cardId === card.id ? focus : undefined}
                      previous={board.data.steps[i - 1]?.name} next={board.data.steps[i + 1]?.name}
                      onMove={(direction) => run({ card, from: step.id, direction }, { cardId: card.id, direction })} />
                  ))}
                </BoardColumn>
              ))}
            </Flex>
            <DragOverlay>{dragging && <Box style={{ cursor: 'grabbing' }}><CardBody card={dragging.card} lifted /></Box>}</DragOverlay>
          </DndContext>
        </>
      )}
    </Page>
  );
}
