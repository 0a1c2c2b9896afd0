import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { ModuleOptions } from '../../app.js';

/** /api/roles — built by its own issue. */
export const rolesRoutes: FastifyPluginAsyncTypebox<ModuleOptions> = async () => {};
