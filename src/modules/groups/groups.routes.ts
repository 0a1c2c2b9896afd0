import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { ModuleOptions } from '../../app.js';

/** /api/groups — built by its own issue. */
export const groupsRoutes: FastifyPluginAsyncTypebox<ModuleOptions> = async () => {};
