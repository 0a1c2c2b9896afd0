import { keepPreviousData, useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { api, unwrap, type RequestBody } from '../../shared';

/** The follow-up area's queries over the typed client (modules-contract §2). */
export const followupKeys = {
  pipelines: ['followup', 'pipelines'] as const,
  board: (id: number) => ['followup', 'board', id] as const,
  myTasks: ['followup', 'my-tasks'] as const,
  task: (id: number) => ['followup', 'task', id] as const,
};

export function usePipelines() {
  return useQuery({
    queryKey: followupKeys.pipelines,
    queryFn: () => unwrap(api.GET('/api/tasks/pipelines', { params: { query: { limit: 100 } } })),
  });
}

export function useBoard(id: number) {
  return useQuery({
    queryKey: followupKeys.board(id),
    queryFn: () => unwrap(api.GET('/api/tasks/pipelines/{id}/board', { params: { path: { id } } })),
  });
}

export type Board = NonNullable<ReturnType<typeof useBoard>['data']>;
export type BoardStep = Board['steps'][number];
export type BoardCard = BoardStep['cards'][number];
export type Move = { card: BoardCard; from: number; stepId?: number; direction?: 'next' | 'previous' };

/** The board with `card` taken out of step `from` and, unless it left the pipeline, put into `to`. */
export function moved(board: Board, card: BoardCard, from: number, to: number | undefined): Board {
  const steps = board.steps.map((s) => {
    if (s.id === from) {
      return { ...s, count: s.count - 1, overdue: s.overdue - (card.task?.overdue ? 1 : 0), cards: s.cards.filter((c) => c.id !== card.id) };
    }
    if (s.id === to) {
      const arriving = { ...card, step: { id: s.id, name: s.name }, task: null, enteredStepAt: new Date().toISOString() };
      return { ...s, count: s.count + 1, cards: [...s.cards, arriving] };
    }
    return s;
  });
  return { ...board, steps };
}

/** The step a move lands on (undefined past the last step: the card is completed). */
export function targetStep(board: Board, move: Move): number | undefined {
  if (move.stepId !== undefined) return move.stepId;
  const at = board.steps.findIndex((s) => s.id === move.from);
  return board.steps[at + (move.direction === 'next' ? 1 : -1)]?.id;
}

/** Moves a card at once on the screen; puts it back, and the API's message is the error, when refused. */
export function useMoveCard(pipelineId: number) {
  const client = useQueryClient();
  const key = followupKeys.board(pipelineId);
  return useMutation({
    mutationFn: ({ card, stepId, direction }: Move) =>
      unwrap(api.PUT('/api/tasks/cards/{id}/move', { params: { path: { id: card.id } }, body: stepId !== undefined ? { stepId } : { direction } })),
    onMutate: async (move) => {
      await client.cancelQueries({ queryKey: key });
      const before = client.getQueryData<Board>(key);
      if (before) client.setQueryData(key, moved(before, move.card, move.from, targetStep(before, move)));
      return { before };
    },
    onError: (_error, _move, context) => {
      if (context?.before) client.setQueryData(key, context.before);
    },
    onSettled: () => Promise.all([client.invalidateQueries({ queryKey: key }), client.invalidateQueries({ queryKey: followupKeys.myTasks })]),
  });
}

const mine = (query: RequestQuery) => unwrap(api.GET('/api/tasks', { params: { query: { assignee: 'me', limit: 100, ...query } } }));
type RequestQuery = { status: 'Open' | 'InProgress' | 'Done'; sort?: 'dueDate' | '-createdAt' };

/** The caller's open and in-progress tasks (soonest due first) and the latest done. */
export function useMyTasks() {
  return useQuery({
    queryKey: followupKeys.myTasks,
    queryFn: async () => {
      const [open, started, done] = await Promise.all([
        mine({ status: 'Open' }), mine({ status: 'InProgress' }), mine({ status: 'Done', sort: '-createdAt' }),
      ]);
      const active = [...open.data, ...started.data].sort((a, b) => (a.dueDate ?? '9999').localeCompare(b.dueDate ?? '9999') || a.id - b.id);
      return { active, done: done.data.slice(0, 20), doneTotal: done.total };
    },
    placeholderData: keepPreviousData,
  });
}

export type Task = NonNullable<ReturnType<typeof useMyTasks>['data']>['active'][number];
export type TaskStatus = Task['status'];

export function useTask(id: number) {
  return useQuery({ queryKey: followupKeys.task(id), queryFn: () => unwrap(api.GET('/api/tasks/{id}', { params: { path: { id } } })) });
}

export type TaskDetail = NonNullable<ReturnType<typeof useTask>['data']>;
export type TaskChanges = RequestBody<'/api/tasks/{id}', 'put'>;

/** Changes a task (its status, usually) and refreshes every list that shows it. */
export function useUpdateTask() {
  const client = useQueryClient();
  return useMutation({
    mutationFn: ({ id, ...body }: TaskChanges & { id: number }) => unwrap(api.PUT('/api/tasks/{id}', { params: { path: { id } }, body })),
    onSuccess: () => Promise.all([client.invalidateQueries({ queryKey: ['followup'] }), client.invalidateQueries({ queryKey: ['people'] })]),
  });
}

export function useAddComment(id: number) {
  const client = useQueryClient();
  return useMutation({
    mutationFn: (body: string) => unwrap(api.POST('/api/tasks/{id}/comments', { params: { path: { id } }, body: { body } })),
    onSuccess: () => client.invalidateQueries({ queryKey: followupKeys.task(id) }),
  });
}
