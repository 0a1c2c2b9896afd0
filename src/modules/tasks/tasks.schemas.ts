import { Type, type Static } from 'typebox';
import { AUTOMATION_TRIGGERS, CARD_STATUSES, TASK_PRIORITIES, TASK_STATUSES } from '../../db/schema/tasks.js';
import { Body, DateString, Id, Instant, LongText, Name, Nullable, PageQueryProps, StringEnum } from '../../lib/schemas.js';

/** Wire format of /api/tasks (modules-contract §2). */

export const Ref = Type.Object({ id: Type.Integer(), name: Type.String() });
export const UserRef = Type.Object({ id: Type.Integer(), username: Type.String() });
export const ContactRef = Type.Object({ id: Type.Integer(), firstName: Type.String(), lastName: Type.String() });
export type ContactRef = Static<typeof ContactRef>;

export const TaskStatus = StringEnum(TASK_STATUSES);
export const TaskPriority = StringEnum(TASK_PRIORITIES);

export const TaskSchema = Type.Object({
  id: Type.Integer(),
  title: Type.String(),
  description: Nullable(Type.String()),
  status: TaskStatus,
  priority: TaskPriority,
  dueDate: Nullable(Type.String({ description: 'YYYY-MM-DD' })),
  overdue: Type.Boolean({ description: 'dueDate before today in the tenant time zone, and status Open or InProgress' }),
  confidential: Type.Boolean(),
  assignee: Nullable(UserRef),
  createdBy: Nullable(UserRef),
  contact: Nullable(ContactRef),
  group: Nullable(Ref),
  request: Nullable(Type.Object({ id: Type.Integer(), type: Type.String() })),
  card: Nullable(Type.Object({ id: Type.Integer(), pipelineId: Type.Integer(), stepId: Type.Integer() })),
  createdAt: Instant,
  completedAt: Nullable(Instant),
});
export type TaskItem = Static<typeof TaskSchema>;

export const CommentSchema = Type.Object({ id: Type.Integer(), body: Type.String(), author: Nullable(UserRef), createdAt: Instant });
export type CommentItem = Static<typeof CommentSchema>;

export const HistorySchema = Type.Object(
  {
    at: Instant,
    type: Type.String({ description: 'The change type (task.created, task.updated …)' }),
    actor: Nullable(UserRef),
    field: Nullable(Type.String()),
    from: Type.Unknown(),
    to: Type.Unknown(),
  },
  { description: 'One entry per changed field of each task change; task.created is one entry with field null' },
);
export type HistoryItem = Static<typeof HistorySchema>;

export const TaskDetailSchema = Type.Object({
  ...TaskSchema.properties,
  comments: Type.Array(CommentSchema),
  history: Type.Array(HistorySchema),
});

const Title = Name;
export const CreateTaskBody = Body({
  title: Title,
  description: Type.Optional(Nullable(LongText)),
  contactId: Type.Optional(Nullable(Id)),
  groupId: Type.Optional(Nullable(Id)),
  requestId: Type.Optional(Nullable(Id)),
  assigneeUserId: Type.Optional(Nullable(Id)),
  dueDate: Type.Optional(Nullable(DateString)),
  priority: Type.Optional(TaskPriority),
  confidential: Type.Optional(Type.Boolean({ default: false })),
});
export type CreateTaskBody = Static<typeof CreateTaskBody>;

export const UpdateTaskBody = Body(
  {
    title: Type.Optional(Title),
    description: Type.Optional(Nullable(LongText)),
    status: Type.Optional(TaskStatus),
    contactId: Type.Optional(Nullable(Id)),
    groupId: Type.Optional(Nullable(Id)),
    requestId: Type.Optional(Nullable(Id)),
    assigneeUserId: Type.Optional(Nullable(Id)),
    dueDate: Type.Optional(Nullable(DateString)),
    priority: Type.Optional(TaskPriority),
    confidential: Type.Optional(Type.Boolean()),
  },
  { description: 'The changed fields. An assignee without tasks:write may change only status.' },
);
export type UpdateTaskBody = Static<typeof UpdateTaskBody>;

export const TASK_SORTS = ['dueDate', '-dueDate', 'createdAt', '-createdAt', 'priority', '-priority'] as const;
export type TaskSort = (typeof TASK_SORTS)[number];

export const ListTasksQuery = Type.Object({
  ...PageQueryProps,
  assignee: Type.Optional(Type.String({ pattern: '^(me|unassigned|[1-9][0-9]{0,15})$', description: '`me`, `unassigned` or a user id' })),
  status: Type.Optional(TaskStatus),
  priority: Type.Optional(TaskPriority),
  overdue: Type.Optional(Type.Boolean()),
  dueFrom: Type.Optional(DateString),
  dueTo: Type.Optional(DateString),
  contactId: Type.Optional(Id),
  groupId: Type.Optional(Id),
  includeDescendants: Type.Optional(Type.Boolean({ default: true })),
  pipelineId: Type.Optional(Id),
  q: Type.Optional(Type.String({ maxLength: 200 })),
  sort: Type.Optional(StringEnum(TASK_SORTS, { description: '`dueDate` (default; no due date last), `-createdAt`, `priority` (Urgent first) …' })),
});
export type ListTasksQuery = Static<typeof ListTasksQuery>;

export const CommentBody = Body({ body: Type.String({ minLength: 1, maxLength: 5000 }) });
export type CommentBody = Static<typeof CommentBody>;

export const BulkBody = Body({
  ids: Type.Array(Id, { minItems: 1, maxItems: 500, uniqueItems: true }),
  action: StringEnum(['assign', 'complete', 'cancel'] as const),
  assigneeUserId: Type.Optional(Nullable(Id)),
});
export type BulkBody = Static<typeof BulkBody>;
export const BulkResult = Type.Object({
  updated: Type.Array(Type.Integer(), { description: 'Ids of the tasks changed' }),
  skipped: Type.Array(Type.Object({ id: Type.Integer(), reason: Type.String() })),
});

/* Pipelines */

export const StepSchema = Type.Object({
  id: Type.Integer(),
  name: Type.String(),
  position: Type.Integer(),
  dueInDays: Type.Integer(),
  assignee: Nullable(UserRef),
});
export const PipelineSchema = Type.Object({
  id: Type.Integer(),
  name: Type.String(),
  description: Nullable(Type.String()),
  steps: Type.Array(StepSchema),
  isActive: Type.Boolean(),
  createdAt: Instant,
});
export type PipelineItem = Static<typeof PipelineSchema>;

const StepInput = Type.Object(
  {
    id: Type.Optional(Id),
    name: Name,
    dueInDays: Type.Integer({ minimum: 0, maximum: 365, default: 0 }),
    assigneeUserId: Type.Optional(Nullable(Id)),
  },
  { additionalProperties: false },
);
export type StepInput = Static<typeof StepInput>;
const Steps = Type.Array(StepInput, { minItems: 1, maxItems: 20 });

export const CreatePipelineBody = Body({
  name: Name,
  description: Type.Optional(Nullable(LongText)),
  steps: Steps,
  isActive: Type.Optional(Type.Boolean({ default: true })),
});
export type CreatePipelineBody = Static<typeof CreatePipelineBody>;
export const UpdatePipelineBody = Body(
  {
    name: Type.Optional(Name),
    description: Type.Optional(Nullable(LongText)),
    isActive: Type.Optional(Type.Boolean()),
    steps: Type.Optional(Steps),
  },
  { description: 'steps, when given, is the whole new list in order: items with an id keep that step, items without one are added, steps left out are removed (409 if they hold cards)' },
);
export type UpdatePipelineBody = Static<typeof UpdatePipelineBody>;
export const ListPipelinesQuery = Type.Object({ ...PageQueryProps, isActive: Type.Optional(Type.Boolean()) });

export const CardTaskSchema = Type.Object({
  id: Type.Integer(),
  title: Type.String(),
  status: TaskStatus,
  dueDate: Nullable(Type.String()),
  overdue: Type.Boolean(),
  assignee: Nullable(UserRef),
});
export const CardSchema = Type.Object({
  id: Type.Integer(),
  pipelineId: Type.Integer(),
  step: Ref,
  contact: ContactRef,
  assignee: Nullable(UserRef),
  group: Nullable(Ref),
  task: Nullable(CardTaskSchema),
  enteredStepAt: Instant,
  status: StringEnum(CARD_STATUSES),
  completedAt: Nullable(Instant),
});
export type CardItem = Static<typeof CardSchema>;

export const BoardSchema = Type.Object({
  pipeline: PipelineSchema,
  steps: Type.Array(
    Type.Object({
      id: Type.Integer(),
      name: Type.String(),
      position: Type.Integer(),
      count: Type.Integer({ description: 'Active cards in the step (within the filter and visibility)' }),
      overdue: Type.Integer({ description: 'Of those, cards whose open task is overdue' }),
      cards: Type.Array(CardSchema, { description: 'The first 50, longest in the step first' }),
    }),
  ),
});
export const BoardQuery = Type.Object({ groupId: Type.Optional(Id), includeDescendants: Type.Optional(Type.Boolean({ default: true })) });
export type BoardQuery = Static<typeof BoardQuery>;

export const CreateCardBody = Body({
  contactId: Id,
  assigneeUserId: Type.Optional(Nullable(Id)),
  groupId: Type.Optional(Nullable(Id)),
});
export type CreateCardBody = Static<typeof CreateCardBody>;
export const MoveCardBody = Body(
  {
    stepId: Type.Optional(Id),
    direction: Type.Optional(StringEnum(['next', 'previous'] as const)),
  },
  { description: 'Exactly one of stepId and direction' },
);
export type MoveCardBody = Static<typeof MoveCardBody>;
export const ListCardsQuery = Type.Object({
  ...PageQueryProps,
  pipelineId: Type.Optional(Id),
  stepId: Type.Optional(Id),
  contactId: Type.Optional(Id),
  status: Type.Optional(StringEnum(CARD_STATUSES)),
});
export type ListCardsQuery = Static<typeof ListCardsQuery>;

/* Automations */

const ConditionValue = Type.Union([Type.String({ maxLength: 200 }), Type.Number(), Type.Boolean(), Type.Null()]);
export const Conditions = Type.Record(Type.String({ maxLength: 100 }), ConditionValue, {
  maxProperties: 20,
  description: 'A flat object matched against the change data; `groupId` matches the group and its subtree',
});
export const AssignTo = Type.Union([Type.Literal('groupLeader'), Id], { description: '`groupLeader` or a user id' });
export const ActionSchema = Type.Object(
  {
    type: StringEnum(['createTask', 'addToPipeline'] as const),
    title: Type.Optional(Title),
    dueInDays: Type.Optional(Type.Integer({ minimum: 0, maximum: 365 })),
    priority: Type.Optional(TaskPriority),
    pipelineId: Type.Optional(Id),
    assignTo: Type.Optional(AssignTo),
  },
  {
    additionalProperties: false,
    description: 'createTask {title (`{contact}` is replaced by the contact name), dueInDays, priority, assignTo} or addToPipeline {pipelineId, assignTo}',
  },
);
export type ActionInput = Static<typeof ActionSchema>;
export const AutomationSchema = Type.Object({
  id: Type.Integer(),
  name: Type.String(),
  trigger: StringEnum(AUTOMATION_TRIGGERS),
  conditions: Conditions,
  action: ActionSchema,
  isActive: Type.Boolean(),
  createdAt: Instant,
  updatedAt: Instant,
});
export type AutomationItem = Static<typeof AutomationSchema>;
export const CreateAutomationBody = Body({
  name: Name,
  trigger: StringEnum(AUTOMATION_TRIGGERS),
  conditions: Type.Optional(Conditions),
  action: ActionSchema,
  isActive: Type.Optional(Type.Boolean({ default: true })),
});
export type CreateAutomationBody = Static<typeof CreateAutomationBody>;
export const UpdateAutomationBody = Body({
  name: Type.Optional(Name),
  trigger: Type.Optional(StringEnum(AUTOMATION_TRIGGERS)),
  conditions: Type.Optional(Conditions),
  action: Type.Optional(ActionSchema),
  isActive: Type.Optional(Type.Boolean()),
});
export type UpdateAutomationBody = Static<typeof UpdateAutomationBody>;
export const ListAutomationsQuery = Type.Object({ ...PageQueryProps, trigger: Type.Optional(StringEnum(AUTOMATION_TRIGGERS)), isActive: Type.Optional(Type.Boolean()) });
export type ListAutomationsQuery = Static<typeof ListAutomationsQuery>;
