import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import { MB, type ModuleOptions } from '../module.js';
import { AppError } from '../../lib/errors.js';
import { errors } from '../../lib/schemas.js';
import { IMPORT_COLUMNS, ImportFormats, ImportJsonBody, ImportQuery, ImportSummary, MAX_IMPORT_ROWS } from './import.schemas.js';
import { importContacts, importFormats } from './import.service.js';

const CsvBody = Type.String({
  description: `text/csv: a header row (${IMPORT_COLUMNS.join(',')}, or a Planning Center, ChurchCRM, Breeze or Elvanto people export's headers), at most ${MAX_IMPORT_ROWS} rows`,
});

/** POST /api/crm/contacts/import: JSON or CSV, per-row errors, batched writes. */
export const importRoutes: FastifyPluginAsyncTypebox<ModuleOptions> = async (app, { db }) => {
  app.post('/contacts/import', {
    bodyLimit: 10 * MB,
    config: { permission: 'contacts:write' },
    schema: {
      tags: ['contacts'],
      description: 'Rows match an existing person by email (case-insensitive), else by phone digits, and update it; otherwise a person is created. CSV headers of other systems\' exports are recognised and values cleaned by the same rules as `parish import` (src/lib/import-formats.ts).',
      querystring: ImportQuery,
      body: { content: { 'application/json': { schema: ImportJsonBody }, 'text/csv': { schema: CsvBody } } },
      response: { 200: ImportSummary, ...errors(400, 401, 403, 413, 415) },
    },
    handler: (request) => {
      // Fastify also parses text/plain; only the two documented forms are accepted.
      const type = (request.headers['content-type'] ?? '').split(';')[0].trim().toLowerCase();
      if (type !== 'application/json' && type !== 'text/csv') throw new AppError(415, 'Unsupported content type: send application/json or text/csv');
      const jsonDryRun = typeof request.body === 'object' ? (request.body as { dryRun?: boolean } | null)?.dryRun : undefined;
      const map = request.query.map === undefined ? [] : ([] as string[]).concat(request.query.map);
      return importContacts(db, request.auth, request.body, { dryRun: jsonDryRun ?? request.query.dryRun, map });
    },
  });

  app.get('/contacts/import/formats', {
    config: { permission: 'contacts:write' },
    schema: { tags: ['contacts'], response: { 200: ImportFormats, ...errors(401, 403) } },
    handler: () => importFormats(),
  });
};
