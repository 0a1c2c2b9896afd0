import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { ModuleOptions } from '../../app.js';

/** /api/events — built by its own issue. */
export const eventsRoutes: FastifyPluginAsyncTypebox<ModuleOptions> = async () => {};
