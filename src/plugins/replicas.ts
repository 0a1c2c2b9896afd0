import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import fp from 'fastify-plugin';
import { beginReplicaAhead, type Db } from '../db/client.js';
import { parseLsn, type Replica, type ReplicaSet } from '../db/replicas.js';
import type { Principal } from './auth.js';

/** The primary's WAL position after a write: sent back on reads that must see that write. */
export const LSN_HEADER = 'parish-lsn';
const LSN_COOKIE = 'parish_lsn';
/** Past this a client's own writes have long reached every replica in rotation (their lag is bounded). */
const LSN_COOKIE_SECONDS = 300;
const READS = new Set(['GET', 'HEAD', 'OPTIONS']);

/** How the auth plugin sends a read-only route's work to a replica (see AuthPluginOptions.replicas). */
export interface ReplicaRouting {
  /** A replica that has replayed what this request must see, or undefined (the primary). */
  pick(request: FastifyRequest): Replica | undefined;
  /** Begins the principal's transaction on the replica; on failure the request reads on the primary. */
  begin(replica: Replica, principal: Principal): Promise<void>;
}

export function replicaRouting(replicas: ReplicaSet, primary: Db): ReplicaRouting {
  return {
    pick(request) {
      const text = headerLsn(request) ?? cookieLsn(request);
      if (text === undefined) return replicas.pick();
      const lsn = parseLsn(text);
      // A malformed position is treated as one no replica has reached: the primary answers.
      return lsn === undefined ? undefined : replicas.pick(lsn);
    },
    async begin(replica, principal) {
      try {
        await beginReplicaAhead(replica.pool, primary, principal.tenantId, principal, (err) => replicas.markDown(replica, err));
      } catch (err) {
        replicas.markDown(replica, err);
      }
    },
  };
}

function headerLsn(request: FastifyRequest): string | undefined {
  const value = request.headers[LSN_HEADER];
  return typeof value === 'string' ? value.trim() : undefined;
}

function cookieLsn(request: FastifyRequest): string | undefined {
  const match = /(?:^|;\s*)parish_lsn=([0-9A-Fa-f]{1,8}\/[0-9A-Fa-f]{1,8})(?:;|$)/.exec(request.headers.cookie ?? '');
  return match?.[1];
}

/**
 * After a successful write, the primary's WAL position as the `Parish-Lsn` header and a cookie (for
 * the console): a read that brings either back goes to a replica only once it has replayed past it.
 */
export const replicasPlugin = fp(async (app: FastifyInstance, { replicas }: { replicas: ReplicaSet }) => {
  app.addHook('onSend', async (request: FastifyRequest, reply: FastifyReply, payload) => {
    if (READS.has(request.method) || reply.statusCode >= 400 || !request.url.startsWith('/api/')) return payload;
    try {
      const lsn = await replicas.primaryLsn();
      reply.header(LSN_HEADER, lsn);
      reply.header('set-cookie', [
        ...[reply.getHeader('set-cookie') ?? []].flat().map(String),
        `${LSN_COOKIE}=${lsn}; Path=/api; Max-Age=${LSN_COOKIE_SECONDS}; HttpOnly; SameSite=Strict`,
      ]);
    } catch (err) {
      // Without it the client's next reads may run on a replica that lags: still within the bound.
      request.log.warn({ err }, 'could not read the primary WAL position');
    }
    return payload;
  });
});
