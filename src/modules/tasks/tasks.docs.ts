import { VISIBILITY, type ModuleDocs } from '../../plugins/operation-docs.js';

const taskVisibility = 'with `tasks:read`: confidential tasks only to their creator and assignee (and `care:read`), tasks of invisible groups hidden; ' +
  'without it: only the tasks the caller created or is assigned.';
const cards = 'cards of visible groups (without a group: `hierarchy:all`) or assigned to the caller.';

/** OpenAPI prose of /api/tasks: tasks, comments, pipelines and cards, automations (merged by the docs plugin). */
export const tasksDocs: ModuleDocs = {
  'GET /api/tasks': { summary: 'List tasks', description: 'Filters by status, assignee, priority, due dates, contact and group.', visibility: taskVisibility },
  'POST /api/tasks': {
    summary: 'Create a task',
    visibility: `${taskVisibility} A groupId must be visible.`,
    errors: { 404: 'The contact, group, request or assignee does not exist or is not visible' },
    example: { title: 'Call Ruth about the baptism class', contactId: 12, assigneeUserId: 4, dueDate: '2026-12-01', priority: 'High' },
  },
  'POST /api/tasks/bulk': {
    summary: 'Assign, complete or cancel many tasks',
    visibility: taskVisibility,
    example: { ids: [31, 32, 33], action: 'assign', assigneeUserId: 4 },
  },
  'GET /api/tasks/:id': { summary: 'Read a task', description: 'With its comments.', visibility: taskVisibility, errors: { 404: 'No task with this id, or not visible' } },
  'PUT /api/tasks/:id': {
    summary: 'Update a task',
    visibility: `${taskVisibility} An assignee without \`tasks:write\` may change only the status.`,
    errors: { 403: 'Fields other than status without tasks:write', 404: 'The task or a referenced record does not exist or is not visible', 409: 'A status transition that is not allowed' },
    example: { status: 'Done' },
  },
  'DELETE /api/tasks/:id': { summary: 'Delete a task', visibility: taskVisibility, errors: { 404: 'No task with this id, or not visible' } },
  'POST /api/tasks/:id/comments': {
    summary: 'Comment on a task',
    visibility: taskVisibility,
    errors: { 404: 'No task with this id, or not visible' },
    example: { body: 'Left a voicemail; will try again Friday.' },
  },
  'GET /api/tasks/pipelines': { summary: 'List follow-up pipelines', visibility: VISIBILITY.tenant },
  'POST /api/tasks/pipelines': {
    summary: 'Create a pipeline',
    description: 'Ordered steps, each with the days a card may stay in it and an optional default assignee.',
    visibility: VISIBILITY.structure,
    errors: { 404: 'A step\'s assignee does not exist' },
    example: { name: 'New visitors', steps: [{ name: 'Welcome call', dueInDays: 2 }, { name: 'Home visit', dueInDays: 14 }] },
  },
  'GET /api/tasks/pipelines/:id': { summary: 'Read a pipeline', visibility: VISIBILITY.tenant, errors: { 404: 'No pipeline with this id' } },
  'PUT /api/tasks/pipelines/:id': {
    summary: 'Update a pipeline',
    description: 'Steps sent replace the steps: keep a step\'s `id` to keep its cards.',
    visibility: VISIBILITY.structure,
    errors: { 404: 'No pipeline with this id', 409: 'Removing a step that still holds cards' },
    example: { name: 'New visitors', steps: [{ id: 1, name: 'Welcome call', dueInDays: 3 }, { id: 2, name: 'Home visit', dueInDays: 14 }] },
  },
  'DELETE /api/tasks/pipelines/:id': { summary: 'Delete a pipeline', visibility: VISIBILITY.structure, errors: { 404: 'No pipeline with this id', 409: 'The pipeline has cards' } },
  'GET /api/tasks/pipelines/:id/board': { summary: 'Read a pipeline\'s board (cards per step)', visibility: cards, errors: { 404: 'No pipeline with this id' } },
  'POST /api/tasks/pipelines/:id/cards': {
    summary: 'Put a contact on a pipeline',
    visibility: `${cards} A groupId must be writable by the caller.`,
    errors: { 404: 'The pipeline, contact, group or assignee does not exist or is not visible', 409: 'The contact already has an open card on the pipeline, or the pipeline is inactive' },
    example: { contactId: 12, assigneeUserId: 4 },
  },
  'GET /api/tasks/cards': { summary: 'List cards', description: 'Filters by pipeline, step, assignee, contact and status.', visibility: cards },
  'PUT /api/tasks/cards/:id/move': {
    summary: 'Move a card to another step',
    description: '`direction: next` past the last step completes the card.',
    visibility: cards,
    errors: { 404: 'No card with this id, or not visible', 409: 'The card is closed, or the step is not of its pipeline' },
    example: { direction: 'next' },
  },
  'DELETE /api/tasks/cards/:id': { summary: 'Take a card off its pipeline', visibility: cards, errors: { 404: 'No card with this id, or not visible' } },
  'GET /api/tasks/automations': { summary: 'List automations', visibility: VISIBILITY.tenant },
  'POST /api/tasks/automations': {
    summary: 'Create an automation',
    description: 'When a change of the `trigger` type matches `conditions`, create a task or put the contact on a pipeline.',
    visibility: VISIBILITY.structure,
    errors: { 404: 'The pipeline or user in the action does not exist' },
    example: { name: 'Welcome first-time visitors', trigger: 'attendance.first_visit', action: { type: 'createTask', title: 'Welcome {contact}', dueInDays: 2, priority: 'High', assignTo: 'groupLeader' } },
  },
  'GET /api/tasks/automations/:id': { summary: 'Read an automation', visibility: VISIBILITY.tenant, errors: { 404: 'No automation with this id' } },
  'PUT /api/tasks/automations/:id': {
    summary: 'Update an automation',
    visibility: VISIBILITY.structure,
    errors: { 404: 'The automation, or the pipeline or user in the action, does not exist' },
    example: { isActive: false },
  },
  'DELETE /api/tasks/automations/:id': { summary: 'Delete an automation', visibility: VISIBILITY.structure, errors: { 404: 'No automation with this id' } },
};
