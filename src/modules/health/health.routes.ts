import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { sql } from 'drizzle-orm';
import { Type } from 'typebox';
import type { Db } from '../../db/client.js';
import { errors } from '../../lib/schemas.js';

export const healthRoutes: FastifyPluginAsyncTypebox<{ db: Db }> = async (app, { db }) => {
  app.get('/health', {
    config: { public: true },
    schema: { tags: ['operations'], security: [], response: { 200: Type.Object({ status: Type.Literal('ok') }), ...errors(503) } },
    handler: async (request, reply) => {
      try {
        await db.execute(sql`select 1`);
        return { status: 'ok' as const };
      } catch (err) {
        request.log.error({ err }, 'health check failed');
        return reply.status(503).send({ statusCode: 503, message: 'Database unavailable', error: 'Service Unavailable' });
      }
    },
  });
};
