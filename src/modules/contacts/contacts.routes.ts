import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { ModuleOptions } from '../../app.js';

/** /api/contacts — built by its own issue. */
export const contactsRoutes: FastifyPluginAsyncTypebox<ModuleOptions> = async () => {};
