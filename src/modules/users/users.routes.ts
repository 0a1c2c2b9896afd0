import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { ModuleOptions } from '../../app.js';

/** /api/users — built by its own issue. */
export const usersRoutes: FastifyPluginAsyncTypebox<ModuleOptions> = async () => {};
