import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { ModuleOptions } from '../module.js';
import { errors, IdParams, NoContent, Paginated } from '../../lib/schemas.js';
import { CreatePledgeBody, ListPledgesQuery, PledgeSchema, UpdatePledgeBody } from './finance.schemas.js';
import { createPledgesService } from './pledges.service.js';

const tags = ['finance'];
const RULES =
  'totalPledged = amount × occurrences of the frequency from startDate to endDate inclusive (OneTime: 1; endDate required otherwise); ' +
  "givenAmount = the contact's gifts to the fund dated between the two, net of refunds; remainingAmount never below 0";

/** /api/finance/pledges. */
export const pledgesRoutes: FastifyPluginAsyncTypebox<ModuleOptions> = async (app, { db }) => {
  const pledges = createPledgesService({ db });

  app.get('/pledges', {
    config: { permission: 'finance:read', readOnly: true },
    schema: { tags, description: `Newest start first. ${RULES}`, querystring: ListPledgesQuery, response: { 200: Paginated(PledgeSchema), ...errors(400, 401, 403) } },
    handler: (request) => pledges.list(request.auth, request.query),
  });
  app.post('/pledges', {
    config: { permission: 'finance:write' },
    schema: { tags, description: `${RULES}. The fund must be active.`, body: CreatePledgeBody, response: { 201: PledgeSchema, ...errors(400, 401, 403, 404) } },
    handler: async (request, reply) => reply.status(201).send(await pledges.create(request.auth, request.body)),
  });
  app.get('/pledges/:id', {
    config: { permission: 'finance:read', readOnly: true },
    schema: { tags, params: IdParams, response: { 200: PledgeSchema, ...errors(400, 401, 403, 404) } },
    handler: (request) => pledges.get(request.auth, request.params.id),
  });
  app.put('/pledges/:id', {
    config: { permission: 'finance:write' },
    schema: { tags, params: IdParams, body: UpdatePledgeBody, response: { 200: PledgeSchema, ...errors(400, 401, 403, 404) } },
    handler: (request) => pledges.update(request.auth, request.params.id, request.body),
  });
  app.delete('/pledges/:id', {
    config: { permission: 'finance:write' },
    schema: { tags, params: IdParams, response: { 204: NoContent, ...errors(400, 401, 403, 404) } },
    handler: async (request, reply) => {
      await pledges.remove(request.auth, request.params.id);
      return reply.status(204).send(null);
    },
  });
};
