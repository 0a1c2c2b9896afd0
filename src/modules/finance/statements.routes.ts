import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { FastifyReply } from 'fastify';
import { Type } from 'typebox';
import { withTenant } from '../../db/client.js';
import { NotFoundError } from '../../lib/errors.js';
import { toPage, pageResult } from '../../lib/pagination.js';
import { errors, Paginated } from '../../lib/schemas.js';
import type { ModuleOptions } from '../module.js';
import { createContributionsService } from './contributions.service.js';
import { assertContact } from './finance.common.js';
import { financeSummary } from './finance.queries.js';
import { BulkStatementsBody, ContactParams, ContributionSchema, HouseholdParams, HouseholdStatementSchema, MyContributionsQuery, StatementQuery, StatementSchema, SummaryQuery, SummarySchema } from './finance.schemas.js';
import { createStatementsService, type StatementOutput } from './statements.service.js';

const tags = ['finance'];
const STATEMENT_DOC =
  'format json (default), csv (text/csv) or pdf (application/pdf, attachment); default period: the previous calendar year in the tenant time zone, or this year to date when the church recorded no gift in the previous year (its first year; `period` says which applied); ' +
  'amounts net of refunds (fully refunded gifts left out); deductible = the part given to tax-deductible funds';

function sendStatement<S>(reply: FastifyReply, out: StatementOutput<S>) {
  if (out.format === 'json') return out.statement;
  const type = out.format === 'pdf' ? 'application/pdf' : 'text/csv; charset=utf-8';
  return reply.type(type).header('content-disposition', `attachment; filename="${out.filename}"`).send(out.body as never);
}

/** Statements, bulk statements, the summary and the caller's own giving. */
export const statementsRoutes: FastifyPluginAsyncTypebox<ModuleOptions> = async (app, { db }) => {
  const statements = createStatementsService({ db });
  const contributions = createContributionsService({ db });

  // The statement reads only: its transaction is begun READ ONLY and the answer (a PDF is rendered
  // after the read) does not wait for COMMIT's reply (RouteAccess.readOnly).
  app.get('/statements/:contactId', {
    config: { permission: 'finance:read', readOnly: true },
    schema: { tags, description: STATEMENT_DOC, params: ContactParams, querystring: StatementQuery, response: { 200: StatementSchema, ...errors(400, 401, 403, 404) } },
    handler: async (request, reply) => sendStatement(reply, await statements.statement(request.auth, request.params.contactId, request.query)),
  });
  app.get('/statements/households/:id', {
    config: { permission: 'finance:read', readOnly: true },
    schema: {
      tags,
      description: 'The gifts of every current member of the household, each line naming its giver (givingTogether is not required). ' +
        `CSV adds a giver column; the PDF is addressed to the household's name and address. ${STATEMENT_DOC}`,
      params: HouseholdParams, querystring: StatementQuery, response: { 200: HouseholdStatementSchema, ...errors(400, 401, 403, 404) },
    },
    handler: async (request, reply) => sendStatement(reply, await statements.householdStatement(request.auth, request.params.id, request.query)),
  });
  app.post('/statements/bulk', {
    config: { permission: 'finance:admin' },
    schema: {
      tags,
      description: 'finance:admin. application/zip, streamed: one PDF per household whose givingTogether is true (addressed to its name and address, ' +
        'covering every member\'s gifts, named household-statement-<id>-<name>-<from>-<to>.pdf) whose members\' combined net total in the period ' +
        '(restricted to fundIds when given) reaches minTotal (default 1), and one PDF per other donor whose own net total reaches it ' +
        '(statement-<contact id>-<last name>-<from>-<to>.pdf): never both, so a member of a giving-together household gets no PDF of their own. ' +
        'Default period: the previous calendar year (this year to date when the church recorded no gift in it). X-Statement-Count gives the number of PDFs.',
      body: BulkStatementsBody, response: { 200: Type.String({ description: 'application/zip' }), ...errors(400, 401, 403, 404) },
    },
    handler: async (request, reply) => {
      const bulk = await statements.prepareBulk(request.auth, request.body);
      return reply
        .type('application/zip')
        .header('content-disposition', `attachment; filename="${bulk.filename}"`)
        .header('x-statement-count', String(bulk.count))
        .send(bulk.stream() as never);
    },
  });
  app.get('/summary', {
    config: { permission: 'finance:read', readOnly: true },
    schema: {
      tags, description: 'Every period of [from, to] present (default: the 12 months or 12 weeks ending with the current one, in the tenant time zone); ' +
        'amounts net of refunds; count = gifts, donors = distinct contacts; averageGift = total ÷ count rounded down',
      querystring: SummaryQuery, response: { 200: SummarySchema, ...errors(400, 401, 403) },
    },
    handler: (request) => withTenant(db, request.auth, (tx) => financeSummary(tx, request.auth, request.query)),
  });

  app.get('/my/contributions', {
    config: { authenticated: true },
    schema: { tags, description: "The caller's own linked contact's gifts, newest first (any valid token; 404 without a linked contact)", querystring: MyContributionsQuery, response: { 200: Paginated(ContributionSchema), ...errors(400, 401, 404) } },
    handler: async (request) => {
      const auth = request.auth;
      await withTenant(db, auth, async (tx) => {
        try {
          if (!auth.contactId) throw new NotFoundError('Your linked contact');
          await assertContact(tx, auth.tenantId, auth.contactId);
        } catch {
          throw new NotFoundError('Your linked contact');
        }
      });
      if (!auth.contactId) return pageResult(toPage(request.query), [], 0);
      return contributions.list(auth, { ...request.query, contactId: auth.contactId });
    },
  });
  app.get('/my/statement', {
    config: { authenticated: true, readOnly: true },
    schema: { tags, description: `The caller's own statement (any valid token; 404 without a linked contact). ${STATEMENT_DOC}`, querystring: StatementQuery, response: { 200: StatementSchema, ...errors(400, 401, 404) } },
    handler: async (request, reply) => sendStatement(reply, await statements.myStatement(request.auth, request.query)),
  });
};
