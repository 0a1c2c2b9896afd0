import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { errors, IdParams, NoContent, PageQuery, Paginated } from '../../lib/schemas.js';
import type { ModuleOptions } from '../module.js';
import { createMessagesService } from './messages.service.js';
import {
  CreateMessageBody, CreateTemplateBody, ListMessageDeliveriesQuery, ListMessagesQuery, MessageAcceptedSchema, MessageDeliverySchema, MessagePreviewSchema, MessageSchema,
  TemplateSchema, UpdateTemplateBody,
} from './notifications.schemas.js';
import { createTemplatesService } from './templates.service.js';

const tags = ['notifications'];
const send = { permission: 'notifications:send' } as const;

/** Email messages to audiences and their templates (notifications:send). */
export const messagesRoutes: FastifyPluginAsyncTypebox<ModuleOptions> = async (app, options) => {
  const messages = createMessagesService(options);
  const templates = createTemplatesService(options);

  app.post('/messages', {
    config: send,
    schema: {
      tags,
      description: 'Queues an email to an audience and answers 202; jobs send it in batches of 50 in the background. Contacts are deduplicated; ' +
        'opted-out contacts (emailOptOut) and contacts without an email are skipped and counted; a group audience is the active members of the ' +
        'group and of the groups under it that the sender can see. Merge fields: {{firstName}}, {{lastName}}, {{churchName}}. ' +
        'audience.listId names a saved list (search module), evaluated when the message is queued as the sender may see it (404 when the list is neither theirs nor shared). ' +
        'The audience follows the sender\'s reading rights: contactIds and listId need contacts:read, groupIds groups:read (403 otherwise).',
      body: CreateMessageBody,
      response: { 202: MessageAcceptedSchema, ...errors(400, 401, 403, 404) },
    },
    handler: async (request, reply) => reply.status(202).send(await messages.create(request.auth, request.body)),
  });

  app.post('/messages/preview', {
    config: send,
    schema: {
      tags,
      description: 'The same body as POST /messages; writes nothing. Answers how many emails a send would queue, which contacts it would skip and why ' +
        '(noEmail, optedOut; the first 100 by contact id, skippedCount counts them all), and the first recipient\'s subject and body with the merge fields filled in. ' +
        'The same checks and errors as the send (403 without the reading rights the audience needs, 404 for what is missing or invisible, 400 for an unknown merge field).',
      body: CreateMessageBody,
      response: { 200: MessagePreviewSchema, ...errors(400, 401, 403, 404) },
    },
    handler: (request) => messages.preview(request.auth, request.body),
  });

  app.get('/messages', {
    config: send,
    schema: { tags, description: 'Newest first', querystring: ListMessagesQuery, response: { 200: Paginated(MessageSchema), ...errors(400, 401, 403) } },
    handler: (request) => messages.list(request.auth, request.query),
  });

  app.get('/messages/:id', {
    config: send,
    schema: { tags, params: IdParams, response: { 200: MessageSchema, ...errors(400, 401, 403, 404) } },
    handler: (request) => messages.get(request.auth, request.params.id),
  });

  app.get('/messages/:id/deliveries', {
    config: send,
    schema: { tags, description: 'One row per recipient, in queue order. Names and addresses are contact data: also needs contacts:read (403 without it).', params: IdParams, querystring: ListMessageDeliveriesQuery, response: { 200: Paginated(MessageDeliverySchema), ...errors(400, 401, 403, 404) } },
    handler: (request) => messages.deliveries(request.auth, request.params.id, request.query),
  });

  app.get('/templates', {
    config: send,
    schema: { tags, description: 'By name', querystring: PageQuery, response: { 200: Paginated(TemplateSchema), ...errors(400, 401, 403) } },
    handler: (request) => templates.list(request.auth, request.query),
  });

  app.post('/templates', {
    config: send,
    schema: { tags, body: CreateTemplateBody, response: { 201: TemplateSchema, ...errors(400, 401, 403, 409) } },
    handler: async (request, reply) => reply.status(201).send(await templates.create(request.auth, request.body)),
  });

  app.get('/templates/:id', {
    config: send,
    schema: { tags, params: IdParams, response: { 200: TemplateSchema, ...errors(400, 401, 403, 404) } },
    handler: (request) => templates.get(request.auth, request.params.id),
  });

  app.put('/templates/:id', {
    config: send,
    schema: { tags, params: IdParams, body: UpdateTemplateBody, response: { 200: TemplateSchema, ...errors(400, 401, 403, 404, 409) } },
    handler: (request) => templates.update(request.auth, request.params.id, request.body),
  });

  app.delete('/templates/:id', {
    config: send,
    schema: { tags, description: 'Messages sent from it keep their text', params: IdParams, response: { 204: NoContent, ...errors(400, 401, 403, 404) } },
    handler: async (request, reply) => {
      await templates.remove(request.auth, request.params.id);
      return reply.status(204).send(null);
    },
  });
};
