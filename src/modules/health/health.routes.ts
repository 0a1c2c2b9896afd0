import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { sql } from 'drizzle-orm';
import { Type } from 'typebox';
import { errors, Nullable } from '../../lib/schemas.js';
import type { ModuleOptions } from '../module.js';

const ReplicaSchema = Type.Object({
  name: Type.String({ description: 'host:port/database' }),
  state: Type.Union([Type.Literal('ok'), Type.Literal('lagging'), Type.Literal('down')], { description: 'Only `ok` replicas take reads' }),
  lagSeconds: Nullable(Type.Number()),
  replayLsn: Nullable(Type.String()),
  checkedAt: Nullable(Type.String()),
  error: Nullable(Type.String()),
});

export const healthRoutes: FastifyPluginAsyncTypebox<ModuleOptions> = async (app, { db, replicas }) => {
  app.get('/health', {
    config: { public: true },
    schema: {
      tags: ['operations'],
      security: [],
      response: { 200: Type.Object({ status: Type.Literal('ok'), replicas: Type.Optional(Type.Array(ReplicaSchema)) }), ...errors(503) },
    },
    handler: async (request, reply) => {
      try {
        await db.execute(sql`select 1`);
        return replicas ? { status: 'ok' as const, replicas: replicas.states() } : { status: 'ok' as const };
      } catch (err) {
        request.log.error({ err }, 'health check failed');
        return reply.status(503).send({ statusCode: 503, message: 'Database unavailable', error: 'Service Unavailable' });
      }
    },
  });
};
