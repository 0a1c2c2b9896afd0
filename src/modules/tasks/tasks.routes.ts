import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { errors, IdParams, NoContent, Paginated } from '../../lib/schemas.js';
import type { ModuleOptions } from '../module.js';
import { createAutomationsService } from './automations.js';
import { createPipelinesService } from './pipelines.service.js';
import {
  AutomationSchema, BoardQuery, BoardSchema, BulkBody, BulkResult, CardSchema, CommentBody, CommentSchema, CreateAutomationBody, CreateCardBody,
  CreatePipelineBody, CreateTaskBody, ListAutomationsQuery, ListCardsQuery, ListPipelinesQuery, ListTasksQuery, MoveCardBody, PipelineSchema,
  TaskDetailSchema, TaskSchema, UpdateAutomationBody, UpdatePipelineBody, UpdateTaskBody,
} from './tasks.schemas.js';
import { createTasksService } from './tasks.service.js';

const tags = ['tasks'];
const OWN = 'Any valid token: without tasks:read the caller sees only the tasks they created or are assigned; an assignee may change the status and comment without tasks:write.';
const WHOLE_TREE = 'Needs tasks:write and hierarchy:all (tenant-wide structure, like group categories).';

/** /api/tasks (modules-contract §2): tasks, comments, pipelines with boards and cards, automations. */
export const tasksRoutes: FastifyPluginAsyncTypebox<ModuleOptions> = async (app, { db }) => {
  const tasks = createTasksService(db);
  const pipelines = createPipelinesService(db);
  const automations = createAutomationsService(db);

  app.get('', {
    config: { authenticated: true, readOnly: true },
    schema: { tags, description: OWN, querystring: ListTasksQuery, response: { 200: Paginated(TaskSchema), ...errors(400, 401) } },
    handler: (request) => tasks.list(request.auth, request.query),
  });
  app.post('', {
    config: { permission: 'tasks:write' },
    schema: { tags, body: CreateTaskBody, response: { 201: TaskSchema, ...errors(400, 401, 403, 404) } },
    handler: async (request, reply) => reply.status(201).send(await tasks.create(request.auth, request.body)),
  });
  app.post('/bulk', {
    config: { authenticated: true },
    schema: {
      tags, description: 'Per id: applied, or skipped with the reason (not found or not visible, not allowed, forbidden transition). assign needs tasks:write; an assignee may complete or cancel their own tasks.',
      body: BulkBody, response: { 200: BulkResult, ...errors(400, 401, 404) },
    },
    handler: (request) => tasks.bulk(request.auth, request.body),
  });

  app.get('/pipelines', {
    config: { permission: 'tasks:read', readOnly: true },
    schema: { tags, querystring: ListPipelinesQuery, response: { 200: Paginated(PipelineSchema), ...errors(400, 401, 403) } },
    handler: (request) => pipelines.list(request.auth, request.query),
  });
  app.post('/pipelines', {
    config: { permission: 'tasks:write' },
    schema: { tags, description: WHOLE_TREE, body: CreatePipelineBody, response: { 201: PipelineSchema, ...errors(400, 401, 403, 404) } },
    handler: async (request, reply) => reply.status(201).send(await pipelines.create(request.auth, request.body)),
  });
  app.get('/pipelines/:id', {
    config: { permission: 'tasks:read', readOnly: true },
    schema: { tags, params: IdParams, response: { 200: PipelineSchema, ...errors(400, 401, 403, 404) } },
    handler: (request) => pipelines.get(request.auth, request.params.id),
  });
  app.put('/pipelines/:id', {
    config: { permission: 'tasks:write' },
    schema: { tags, description: WHOLE_TREE, params: IdParams, body: UpdatePipelineBody, response: { 200: PipelineSchema, ...errors(400, 401, 403, 404, 409) } },
    handler: (request) => pipelines.update(request.auth, request.params.id, request.body),
  });
  app.delete('/pipelines/:id', {
    config: { permission: 'tasks:write' },
    schema: { tags, description: `${WHOLE_TREE} 409 while it has cards (of any status): deactivate it instead.`, params: IdParams, response: { 204: NoContent, ...errors(400, 401, 403, 404, 409) } },
    handler: async (request, reply) => {
      await pipelines.remove(request.auth, request.params.id);
      return reply.status(204).send(null);
    },
  });
  app.get('/pipelines/:id/board', {
    config: { permission: 'tasks:read', readOnly: true },
    schema: { tags, description: 'Cards the caller sees: of visible groups (without a group: hierarchy:all) or assigned to them.', params: IdParams, querystring: BoardQuery, response: { 200: BoardSchema, ...errors(400, 401, 403, 404) } },
    handler: (request) => pipelines.board(request.auth, request.params.id, request.query),
  });
  app.post('/pipelines/:id/cards', {
    config: { permission: 'tasks:write' },
    schema: { tags, params: IdParams, body: CreateCardBody, response: { 201: CardSchema, ...errors(400, 401, 403, 404, 409) } },
    handler: async (request, reply) => reply.status(201).send(await pipelines.addCard(request.auth, request.params.id, request.body)),
  });

  app.get('/cards', {
    config: { permission: 'tasks:read', readOnly: true },
    schema: { tags, querystring: ListCardsQuery, response: { 200: Paginated(CardSchema), ...errors(400, 401, 403) } },
    handler: (request) => pipelines.listCards(request.auth, request.query),
  });
  app.put('/cards/:id/move', {
    config: { permission: 'tasks:write' },
    schema: { tags, params: IdParams, body: MoveCardBody, response: { 200: CardSchema, ...errors(400, 401, 403, 404, 409) } },
    handler: (request) => pipelines.moveCard(request.auth, request.params.id, request.body),
  });
  app.delete('/cards/:id', {
    config: { permission: 'tasks:write' },
    schema: { tags, params: IdParams, response: { 204: NoContent, ...errors(400, 401, 403, 404) } },
    handler: async (request, reply) => {
      await pipelines.removeCard(request.auth, request.params.id);
      return reply.status(204).send(null);
    },
  });

  app.get('/automations', {
    config: { permission: 'tasks:read', readOnly: true },
    schema: { tags, querystring: ListAutomationsQuery, response: { 200: Paginated(AutomationSchema), ...errors(400, 401, 403) } },
    handler: (request) => automations.list(request.auth, request.query),
  });
  app.post('/automations', {
    config: { permission: 'tasks:write' },
    schema: { tags, description: WHOLE_TREE, body: CreateAutomationBody, response: { 201: AutomationSchema, ...errors(400, 401, 403, 404) } },
    handler: async (request, reply) => reply.status(201).send(await automations.create(request.auth, request.body)),
  });
  app.get('/automations/:id', {
    config: { permission: 'tasks:read', readOnly: true },
    schema: { tags, params: IdParams, response: { 200: AutomationSchema, ...errors(400, 401, 403, 404) } },
    handler: (request) => automations.get(request.auth, request.params.id),
  });
  app.put('/automations/:id', {
    config: { permission: 'tasks:write' },
    schema: { tags, description: WHOLE_TREE, params: IdParams, body: UpdateAutomationBody, response: { 200: AutomationSchema, ...errors(400, 401, 403, 404) } },
    handler: (request) => automations.update(request.auth, request.params.id, request.body),
  });
  app.delete('/automations/:id', {
    config: { permission: 'tasks:write' },
    schema: { tags, description: WHOLE_TREE, params: IdParams, response: { 204: NoContent, ...errors(400, 401, 403, 404) } },
    handler: async (request, reply) => {
      await automations.remove(request.auth, request.params.id);
      return reply.status(204).send(null);
    },
  });

  app.get('/:id', {
    config: { authenticated: true, readOnly: true },
    schema: { tags, description: OWN, params: IdParams, response: { 200: TaskDetailSchema, ...errors(400, 401, 404) } },
    handler: (request) => tasks.get(request.auth, request.params.id),
  });
  app.put('/:id', {
    config: { authenticated: true },
    schema: {
      tags, description: `${OWN} Status: Open → InProgress, Done, Cancelled; InProgress → Open, Done, Cancelled; Done and Cancelled → Open; anything else 409.`,
      params: IdParams, body: UpdateTaskBody, response: { 200: TaskSchema, ...errors(400, 401, 403, 404, 409) },
    },
    handler: (request) => tasks.update(request.auth, request.params.id, request.body),
  });
  app.delete('/:id', {
    config: { permission: 'tasks:write' },
    schema: { tags, params: IdParams, response: { 204: NoContent, ...errors(400, 401, 403, 404) } },
    handler: async (request, reply) => {
      await tasks.remove(request.auth, request.params.id);
      return reply.status(204).send(null);
    },
  });
  app.post('/:id/comments', {
    config: { authenticated: true },
    schema: { tags, description: OWN, params: IdParams, body: CommentBody, response: { 201: CommentSchema, ...errors(400, 401, 403, 404) } },
    handler: async (request, reply) => reply.status(201).send(await tasks.comment(request.auth, request.params.id, request.body)),
  });
};
