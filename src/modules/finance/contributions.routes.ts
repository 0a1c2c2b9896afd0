import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import { MB, type ModuleOptions } from '../module.js';
import { AppError } from '../../lib/errors.js';
import { errors, IdParams, NoContent, Paginated } from '../../lib/schemas.js';
import { createContributionsService } from './contributions.service.js';
import { createExportService } from './export.service.js';
import {
  ContributionSchema, CreateContributionBody, ExportContributionsQuery, ImportJsonBody, ImportQuery, ImportResult, ListContributionsQuery,
  MAX_IMPORT_ROWS, RefundBody, UpdateContributionBody,
} from './finance.schemas.js';
import { createImportService, csvImportRows } from './import.service.js';

const tags = ['finance'];

const ImportBody = {
  content: {
    'application/json': { schema: ImportJsonBody },
    'text/csv': { schema: Type.String({ description: `CSV with a header row: date,amount,fund (required), contactId,email,phone,name,method,reference; at most ${MAX_IMPORT_ROWS} rows; query batchId, dryRun` }) },
  },
} as unknown as typeof ImportJsonBody;

/** /api/finance/contributions: list, CRUD, refunds, import and export. */
export const contributionsRoutes: FastifyPluginAsyncTypebox<ModuleOptions> = async (app, { db }) => {
  const contributions = createContributionsService({ db });
  const importer = createImportService({ db });
  const exporter = createExportService({ db });

  app.get('/contributions', {
    config: { permission: 'finance:read', readOnly: true },
    schema: { tags, querystring: ListContributionsQuery, response: { 200: Paginated(ContributionSchema), ...errors(400, 401, 403) } },
    handler: (request) => contributions.list(request.auth, request.query),
  });
  app.post('/contributions', {
    config: { permission: 'finance:write' },
    schema: {
      tags, description: 'The funds: `fundId` (the whole amount to one fund: the one-line form) or `lines` (a split: 1–20, each fund once, summing to amount), '
        + 'not both (400); funds must be active (400); the batch must be Open (409)',
      body: CreateContributionBody, response: { 201: ContributionSchema, ...errors(400, 401, 403, 404, 409) },
    },
    handler: async (request, reply) => reply.status(201).send(await contributions.create(request.auth, request.body)),
  });
  app.post('/contributions/import', {
    config: { permission: 'finance:write' },
    bodyLimit: 10 * MB,
    schema: {
      tags,
      description: 'Donors matched by contactId, else email, else phone digits, else exact full name (each only when exactly one contact matches); ' +
        'rows with payer details matching nobody are kept as anonymous gifts flagged unmatched; method defaults to Other; dryRun writes nothing',
      querystring: ImportQuery, body: ImportBody, response: { 200: ImportResult, ...errors(400, 401, 403, 404, 409, 413, 415) },
    },
    handler: async (request) => {
      const type = (request.headers['content-type'] ?? '').split(';')[0].trim().toLowerCase();
      const body = request.body as unknown;
      if (type === 'text/csv' && typeof body === 'string') {
        return importer.importContributions(request.auth, csvImportRows(body), { batchId: request.query.batchId, dryRun: request.query.dryRun });
      }
      if (type !== 'application/json') throw new AppError(415, 'Unsupported content type: send application/json or text/csv');
      if (body === undefined) throw new AppError(400, 'body is required');
      const json = body as ImportJsonBody;
      return importer.importContributions(request.auth, json.rows, { batchId: json.batchId ?? request.query.batchId, dryRun: json.dryRun ?? request.query.dryRun });
    },
  });
  app.get('/contributions/export', {
    config: { permission: 'finance:read' },
    schema: {
      tags, description: 'text/csv (RFC 4180, header row, cells beginning with = + - @ prefixed with \'), streamed; the list\'s filters, ordered by date then id',
      querystring: ExportContributionsQuery, response: { 200: Type.String({ description: 'text/csv' }), ...errors(400, 401, 403) },
    },
    handler: async (request, reply) => {
      const stream = await exporter.exportCsv(request.auth, request.query);
      return reply.type('text/csv; charset=utf-8').header('content-disposition', 'attachment; filename="contributions.csv"').send(stream as never);
    },
  });
  app.get('/contributions/:id', {
    config: { permission: 'finance:read', readOnly: true },
    schema: { tags, params: IdParams, response: { 200: ContributionSchema, ...errors(400, 401, 403, 404) } },
    handler: (request) => contributions.get(request.auth, request.params.id),
  });
  app.put('/contributions/:id', {
    config: { permission: 'finance:write' },
    schema: {
      tags, description: '409 in a Closed batch, and for amount or lines once refunded; `lines` (or `fundId`, one fund taking the whole amount) replace the old '
        + 'lines and must sum to the amount',
      params: IdParams, body: UpdateContributionBody, response: { 200: ContributionSchema, ...errors(400, 401, 403, 404, 409) },
    },
    handler: (request) => contributions.update(request.auth, request.params.id, request.body),
  });
  app.delete('/contributions/:id', {
    config: { permission: 'finance:write' },
    schema: { tags, description: '409 in a Closed batch unless the caller holds finance:admin', params: IdParams, response: { 204: NoContent, ...errors(400, 401, 403, 404, 409) } },
    handler: async (request, reply) => {
      await contributions.remove(request.auth, request.params.id);
      return reply.status(204).send(null);
    },
  });
  app.post('/contributions/:id/refund', {
    config: { permission: 'finance:write' },
    schema: {
      tags, description: 'amount ≤ what is left (400); status becomes PartiallyRefunded or Refunded; apportioned onto the lines in integers. ' +
        '409 in a Closed batch, like any change to a counted deposit: a finance:admin reopens the batch, refunds, and closes it again',
      params: IdParams, body: RefundBody, response: { 200: ContributionSchema, ...errors(400, 401, 403, 404, 409) },
    },
    handler: (request) => contributions.refund(request.auth, request.params.id, request.body),
  });
};
