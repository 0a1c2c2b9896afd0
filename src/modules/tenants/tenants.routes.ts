import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import type { Db } from '../../db/client.js';
import { Paginated, PageQuery } from '../../lib/schemas.js';
import { listTenants } from './tenants.service.js';

const TenantItem = Type.Object({ slug: Type.String(), name: Type.String() });

/** GET /api/tenants: public, for a login screen; only slug and name leave. */
export const tenantsRoutes: FastifyPluginAsyncTypebox<{ db: Db }> = async (app, { db }) => {
  app.get('/tenants', {
    config: { public: true },
    schema: { tags: ['tenants'], security: [], querystring: PageQuery, response: { 200: Paginated(TenantItem) } },
    handler: (request) => listTenants(db, request.query),
  });
};
