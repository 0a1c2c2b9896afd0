import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { errors } from '../../lib/schemas.js';
import type { ModuleOptions } from '../module.js';
import { reportCsvStream } from './report.csv.js';
import { ReportCatalog, ReportOutputSchema, ReportParams, ReportQuery } from './reports.schemas.js';
import { createReportsService, csvFileName } from './reports.service.js';

const tags = ['reports'];

/** GET /api/reports (the catalog of what the caller may run) and GET /api/reports/:key. */
export const catalogRoutes: FastifyPluginAsyncTypebox<ModuleOptions> = async (app, { db }) => {
  const svc = createReportsService({ db });

  app.get('/reports', {
    config: { permission: 'reports:read' },
    schema: { tags, summary: 'The standard reports the caller may run', response: { 200: ReportCatalog, ...errors(401, 403) } },
    handler: (request) => svc.catalog(request.auth),
  });

  app.get('/reports/:key', {
    config: { permission: 'reports:read', readOnly: true },
    schema: {
      tags,
      summary: 'Run a standard report',
      description:
        'JSON `{key, name, parameters, columns, rows, totals}` or, with format=csv (or `Accept: text/csv` and no format), the same rows as streamed `text/csv` named by `Content-Disposition: attachment; filename="<key>_<scope>_<from>_to_<to>.csv"` (scope: the group\'s name as lower-case words joined by -, with -only when includeDescendants=false; all-groups without groupId; whole-church for tenant-wide reports) (a header of the column labels; group/contact/fund/user columns as an id column and a name column; cells starting with = + - @ prefixed with \'). Unknown key 404; a report whose module permission the caller lacks 403; an unknown or malformed parameter 400; from after to, or a window over 5 years, 400; an unknown or invisible groupId 404; giving reports are tenant-wide and answer 400 to groupId.',
      params: ReportParams,
      querystring: ReportQuery,
      response: { 200: ReportOutputSchema, ...errors(400, 401, 403, 404) },
    },
    handler: async (request, reply) => {
      const query = { ...(request.query as Record<string, unknown>) };
      // `Accept: text/csv` (without a format parameter) asks for the CSV too.
      if (query.format === undefined && /^\s*text\/csv\b/i.test(request.headers.accept ?? '')) query.format = 'csv';
      const { output, format, scopeLabel } = await svc.run(request.auth, request.params.key, query);
      if (format === 'csv') {
        return reply
          .type('text/csv; charset=utf-8')
          .header('content-disposition', `attachment; filename="${csvFileName(output.key, scopeLabel, { from: output.parameters.from, to: output.parameters.to })}"`)
          .send(reportCsvStream(output.columns, output.rows) as never);
      }
      return output;
    },
  });
};
