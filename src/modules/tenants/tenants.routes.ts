import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import { PAPER_SIZES } from '../../db/schema/index.js';
import { Body, Email, errors, Name, Nullable, Paginated, PageQuery, StringEnum } from '../../lib/schemas.js';
import type { ModuleOptions } from '../module.js';
import { getCurrentTenant, listTenants, updateCurrentTenant } from './tenants.service.js';

const TenantItem = Type.Object({ slug: Type.String(), name: Type.String() });

const TenantSettingsSchema = Type.Object({
  slug: Type.String(),
  name: Type.String(),
  timeZone: Type.String({ description: 'IANA time zone: "today", weeks (from Sunday) and months are computed in it' }),
  currency: Type.String({ description: 'ISO 4217 code; amounts are integers in its minor unit' }),
  allowRegistration: Type.Boolean(),
  address: Nullable(Type.String({ description: "The church's postal address (free text), printed in a statement's header" })),
  taxNumber: Nullable(Type.String({ description: "The church's registration or tax number, printed in a statement's header" })),
  statementClosing: Nullable(Type.String({ description: 'A closing sentence printed at the end of giving statements' })),
  paperSize: StringEnum(PAPER_SIZES, { description: 'The paper statement PDFs are laid out on (A4 by default)' }),
  replyTo: Nullable(Type.String({ description: "Where replies to the church's messages go; null: the sending user's own email" })),
});

/** Free text; an empty or blank value clears it (null). */
const OptionalText = (maxLength: number) => Type.Optional(Nullable(Type.String({ maxLength })));

const UpdateTenantBody = Body({
  name: Type.Optional(Name),
  timeZone: Type.Optional(Type.String({ minLength: 1, maxLength: 64 })),
  currency: Type.Optional(Type.String({ minLength: 3, maxLength: 3 })),
  allowRegistration: Type.Optional(Type.Boolean()),
  address: OptionalText(500),
  taxNumber: OptionalText(100),
  statementClosing: OptionalText(500),
  paperSize: Type.Optional(StringEnum(PAPER_SIZES)),
  replyTo: Type.Optional(Nullable(Email)),
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
