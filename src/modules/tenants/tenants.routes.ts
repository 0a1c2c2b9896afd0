import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import { Body, errors, Name, Paginated, PageQuery } from '../../lib/schemas.js';
import type { ModuleOptions } from '../module.js';
import { getCurrentTenant, listTenants, updateCurrentTenant } from './tenants.service.js';

const TenantItem = Type.Object({ slug: Type.String(), name: Type.String() });

const TenantSettingsSchema = Type.Object({
  slug: Type.String(),
  name: Type.String(),
  timeZone: Type.String({ description: 'IANA time zone: "today", weeks (from Sunday) and months are computed in it' }),
  currency: Type.String({ description: 'ISO 4217 code; amounts are integers in its minor unit' }),
  allowRegistration: Type.Boolean(),
});

const UpdateTenantBody = Body({
  name: Type.Optional(Name),
  timeZone: Type.Optional(Type.String({ minLength: 1, maxLength: 64 })),
  currency: Type.Optional(Type.String({ minLength: 3, maxLength: 3 })),
  allowRegistration: Type.Optional(Type.Boolean()),
});

/** GET /api/tenants (public, for a login screen: slug and name only); the caller's tenant settings. */
export const tenantsRoutes: FastifyPluginAsyncTypebox<ModuleOptions> = async (app, { db }) => {
  const tags = ['tenants'];
  app.get('/tenants', {
    config: { public: true },
    schema: { tags, security: [], querystring: PageQuery, response: { 200: Paginated(TenantItem) } },
    handler: (request) => listTenants(db, request.query),
  });

  app.get('/tenants/current', {
    config: { authenticated: true },
    schema: { tags, response: { 200: TenantSettingsSchema, ...errors(401) } },
    handler: (request) => getCurrentTenant(db, request.auth),
  });

  app.put('/tenants/current', {
    config: { permission: 'roles:write' },
    schema: { tags, body: UpdateTenantBody, response: { 200: TenantSettingsSchema, ...errors(400, 401, 403, 409) } },
    handler: (request) => updateCurrentTenant(db, request.auth, request.body),
  });
};
