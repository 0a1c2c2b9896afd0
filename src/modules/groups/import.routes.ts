import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import { MB, type ModuleOptions } from '../module.js';
import { AppError } from '../../lib/errors.js';
import { errors } from '../../lib/schemas.js';
import { ImportJsonBody, ImportSummary } from './groups.schemas.js';
import { createImportService, csvRows } from './import.service.js';

/** One schema per content type: JSON `{groups: [...]}` or a CSV text (header name,category,parentName). */
const ImportBody = {
  content: {
    'application/json': { schema: ImportJsonBody },
    'text/csv': { schema: Type.String({ description: 'CSV with the header name,category,parentName' }) },
  },
} as unknown as typeof ImportJsonBody;

/** POST /api/groups/import: groups:write plus hierarchy:all (checked in the service). */
export const importRoutes: FastifyPluginAsyncTypebox<ModuleOptions> = async (app, { db }) => {
  const service = createImportService(db);

  app.post('/import', {
    config: { permission: 'groups:write' },
    bodyLimit: 10 * MB,
    schema: { tags: ['groups'], body: ImportBody, response: { 200: ImportSummary, ...errors(400, 401, 403, 413, 415) } },
    handler: async (request) => {
      const type = (request.headers['content-type'] ?? '').split(';')[0].trim().toLowerCase();
      const body = request.body as unknown;
      if (type === 'text/csv' && typeof body === 'string') return service.importGroups(request.auth, csvRows(body));
      if (type !== 'application/json') throw new AppError(415, 'Unsupported content type: send application/json or text/csv');
      if (body === undefined) throw new AppError(400, 'body is required');
      return service.importGroups(request.auth, (body as { groups: [] }).groups);
    },
  });
};
