import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { ModuleOptions } from '../module.js';
import { errors, IdParams, NoContent, Paginated } from '../../lib/schemas.js';
import { createBatchesService } from './batches.service.js';
import { BatchSchema, CloseBatchBody, CreateBatchBody, CreateFundBody, FundSchema, ListBatchesQuery, ListFundsQuery, UpdateBatchBody, UpdateFundBody } from './finance.schemas.js';
import { createFundsService } from './funds.service.js';

const tags = ['finance'];

/** /api/finance/funds and /api/finance/batches. */
export const fundsBatchesRoutes: FastifyPluginAsyncTypebox<ModuleOptions> = async (app, { db }) => {
  const funds = createFundsService({ db });
  const batches = createBatchesService({ db });

  app.get('/funds', {
    config: { permission: 'finance:read', readOnly: true },
    schema: { tags, description: 'Funds by name', querystring: ListFundsQuery, response: { 200: Paginated(FundSchema), ...errors(400, 401, 403) } },
    handler: (request) => funds.list(request.auth, request.query),
  });
  app.post('/funds', {
    config: { permission: 'finance:write' },
    schema: { tags, description: 'Names and codes are unique per tenant, case-insensitively (409)', body: CreateFundBody, response: { 201: FundSchema, ...errors(400, 401, 403, 409) } },
    handler: async (request, reply) => reply.status(201).send(await funds.create(request.auth, request.body)),
  });
  app.get('/funds/:id', {
    config: { permission: 'finance:read', readOnly: true },
    schema: { tags, params: IdParams, response: { 200: FundSchema, ...errors(400, 401, 403, 404) } },
    handler: (request) => funds.get(request.auth, request.params.id),
  });
  app.put('/funds/:id', {
    config: { permission: 'finance:write' },
    schema: { tags, params: IdParams, body: UpdateFundBody, response: { 200: FundSchema, ...errors(400, 401, 403, 404, 409) } },
    handler: (request) => funds.update(request.auth, request.params.id, request.body),
  });
  app.delete('/funds/:id', {
    config: { permission: 'finance:write' },
    schema: { tags, description: '409 while contributions or pledges use the fund: deactivate it instead', params: IdParams, response: { 204: NoContent, ...errors(400, 401, 403, 404, 409) } },
    handler: async (request, reply) => {
      await funds.remove(request.auth, request.params.id);
      return reply.status(204).send(null);
    },
  });

  app.get('/batches', {
    config: { permission: 'finance:read', readOnly: true },
    schema: { tags, description: 'Newest first (date, then id)', querystring: ListBatchesQuery, response: { 200: Paginated(BatchSchema), ...errors(400, 401, 403) } },
    handler: (request) => batches.list(request.auth, request.query),
  });
  app.post('/batches', {
    config: { permission: 'finance:write' },
    schema: { tags, body: CreateBatchBody, response: { 201: BatchSchema, ...errors(400, 401, 403) } },
    handler: async (request, reply) => reply.status(201).send(await batches.create(request.auth, request.body)),
  });
  app.get('/batches/:id', {
    config: { permission: 'finance:read', readOnly: true },
    schema: { tags, params: IdParams, response: { 200: BatchSchema, ...errors(400, 401, 403, 404) } },
    handler: (request) => batches.get(request.auth, request.params.id),
  });
  app.put('/batches/:id', {
    config: { permission: 'finance:write' },
    schema: { tags, description: '409 for a closed batch (reopen it first)', params: IdParams, body: UpdateBatchBody, response: { 200: BatchSchema, ...errors(400, 401, 403, 404, 409) } },
    handler: (request) => batches.update(request.auth, request.params.id, request.body),
  });
  app.delete('/batches/:id', {
    config: { permission: 'finance:write' },
    schema: { tags, description: 'Only an empty Open batch (409 otherwise)', params: IdParams, response: { 204: NoContent, ...errors(400, 401, 403, 404, 409) } },
    handler: async (request, reply) => {
      await batches.remove(request.auth, request.params.id);
      return reply.status(204).send(null);
    },
  });
  app.put('/batches/:id/close', {
    config: { permission: 'finance:write' },
    schema: {
      tags, description: '409 while the variance is not 0 or the count differs from controlCount, unless force: true; 409 when already closed',
      params: IdParams, body: CloseBatchBody, response: { 200: BatchSchema, ...errors(400, 401, 403, 404, 409) },
    },
    handler: (request) => batches.close(request.auth, request.params.id, request.body.force ?? false),
  });
  app.put('/batches/:id/reopen', {
    config: { permission: 'finance:admin' },
    schema: { tags, description: 'finance:admin; 409 when the batch is not closed', params: IdParams, response: { 200: BatchSchema, ...errors(400, 401, 403, 404, 409) } },
    handler: (request) => batches.reopen(request.auth, request.params.id),
  });
};
