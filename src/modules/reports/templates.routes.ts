import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { errors, IdParams, NoContent, Paginated } from '../../lib/schemas.js';
import type { ModuleOptions } from '../module.js';
import {
  CreateSubmissionBody, CreateTemplateBody, ListSubmissionsQuery, ListTemplatesQuery, RollupQuery, RollupSchema, SubmissionSchema, TemplateSchema,
  UpdateSubmissionBody, UpdateTemplateBody,
} from './templates.schemas.js';
import { createTemplatesService } from './templates.service.js';

const tags = ['reports'];
const permission = 'reports:read' as const;

/** /api/reports/templates and /api/reports/submissions: the leaders' weekly or monthly reports. */
export const templatesRoutes: FastifyPluginAsyncTypebox<ModuleOptions> = async (app, { db }) => {
  const svc = createTemplatesService({ db });

  app.get('/reports/templates', {
    config: { permission },
    schema: { tags, summary: 'List report templates (name order)', querystring: ListTemplatesQuery, response: { 200: Paginated(TemplateSchema), ...errors(400, 401, 403) } },
    handler: (request) => svc.list(request.auth, request.query),
  });

  app.post('/reports/templates', {
    config: { permission },
    schema: {
      tags,
      summary: 'Create a report template',
      description: 'Needs reports:read and hierarchy:all. `options` are required for (and kept only on) select fields.',
      body: CreateTemplateBody,
      response: { 201: TemplateSchema, ...errors(400, 401, 403, 404) },
    },
    handler: async (request, reply) => reply.status(201).send(await svc.create(request.auth, request.body)),
  });

  app.get('/reports/templates/:id', {
    config: { permission },
    schema: { tags, params: IdParams, response: { 200: TemplateSchema, ...errors(400, 401, 403, 404) } },
    handler: (request) => svc.get(request.auth, request.params.id),
  });

  app.put('/reports/templates/:id', {
    config: { permission },
    schema: {
      tags,
      description: 'Needs hierarchy:all. With submissions, the category and frequency cannot change (409); fields can (old values are kept as filed).',
      params: IdParams,
      body: UpdateTemplateBody,
      response: { 200: TemplateSchema, ...errors(400, 401, 403, 404, 409) },
    },
    handler: (request) => svc.update(request.auth, request.params.id, request.body),
  });

  app.delete('/reports/templates/:id', {
    config: { permission },
    schema: { tags, description: 'Needs hierarchy:all; 409 while it has submissions (deactivate it instead)', params: IdParams, response: { 204: NoContent, ...errors(400, 401, 403, 404, 409) } },
    handler: async (request, reply) => {
      await svc.remove(request.auth, request.params.id);
      return reply.status(204).send(null);
    },
  });

  app.post('/reports/templates/:id/submissions', {
    config: { permission },
    schema: {
      tags,
      summary: 'Submit a report for a group',
      description:
        'The group must be of the template\'s category and inside a subtree the caller leads (or hierarchy:all). `period` (default today) is any date in the week or month reported; it is stored as the first day (weeks start on Sunday, in the tenant\'s time zone); a period that has not started is 400. One submission per (template, group, period): 409. An inactive template is 409.',
      params: IdParams,
      body: CreateSubmissionBody,
      response: { 201: SubmissionSchema, ...errors(400, 401, 403, 404, 409) },
    },
    handler: async (request, reply) => reply.status(201).send(await svc.submit(request.auth, request.params.id, request.body)),
  });

  app.get('/reports/templates/:id/submissions', {
    config: { permission },
    schema: {
      tags,
      description: 'Submissions of visible groups in scope, newest period first. from/to filter the period (first day of the week or month).',
      params: IdParams,
      querystring: ListSubmissionsQuery,
      response: { 200: Paginated(SubmissionSchema), ...errors(400, 401, 403, 404) },
    },
    handler: (request) => svc.listSubmissions(request.auth, request.params.id, request.query),
  });

  app.get('/reports/templates/:id/rollup', {
    config: { permission },
    schema: {
      tags,
      description:
        'Per period of the window (default: the last 4 weeks or 3 months): the visible groups of the template\'s category in scope that have not reported, and the sums of the numeric fields over the submissions in scope. An unknown or invisible groupId is 404.',
      params: IdParams,
      querystring: RollupQuery,
      response: { 200: RollupSchema, ...errors(400, 401, 403, 404) },
    },
    handler: (request) => svc.rollup(request.auth, request.params.id, request.query),
  });

  app.put('/reports/submissions/:id', {
    config: { permission },
    schema: {
      tags,
      description: 'Replaces the values. Its submitter within 7 days of submitting (still leading the group), or hierarchy:all. Records report.updated with the diff.',
      params: IdParams,
      body: UpdateSubmissionBody,
      response: { 200: SubmissionSchema, ...errors(400, 401, 403, 404) },
    },
    handler: (request) => svc.updateSubmission(request.auth, request.params.id, request.body),
  });

  app.delete('/reports/submissions/:id', {
    config: { permission },
    schema: { tags, description: 'Its submitter within 7 days, or hierarchy:all', params: IdParams, response: { 204: NoContent, ...errors(400, 401, 403, 404) } },
    handler: async (request, reply) => {
      await svc.removeSubmission(request.auth, request.params.id);
      return reply.status(204).send(null);
    },
  });
};
