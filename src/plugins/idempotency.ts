import crypto from 'node:crypto';
import { sql } from 'drizzle-orm';
import type { FastifyInstance, FastifyReply, FastifyRequest, RouteOptions } from 'fastify';
import fp from 'fastify-plugin';
import { withTenant, type Db } from '../db/client.js';
import { AppError, BadRequestError, ConflictError } from '../lib/errors.js';
import { seal, unseal } from '../lib/sealed.js';

/**
 * `Idempotency-Key` (modules-contract §0) on every POST whose response schema declares 201 or 202:
 * routes are picked when they are registered (onRoute), so a module added later gets it without
 * doing anything. Keys live in `idempotency_keys` per (tenant, user, key) with a SHA-256 of the
 * method, URL and (validated) body:
 * - first use: the key is claimed (in flight), the request runs, its response (status, body sealed
 *   with src/lib/sealed.ts, content type) is stored; a 5xx is not stored (the key is released, a retry runs again);
 * - same key, same request, within 24 hours: the stored response is replayed with
 *   `Idempotent-Replayed: true`, the work is not done again;
 * - same key, different request (another body, or another route): 422;
 * - same key while the first is still running: 409;
 * - a key older than 24 hours is free again; a claim left in flight for more than 60 seconds
 *   (a process that died mid-request; requests time out after 30 s) is abandoned and may be taken over.
 * Public routes (self-registration) have no user to scope keys by: there the header is ignored.
 * The response is stored just after the write's own transaction commits: a process dying in
 * between leaves an abandoned claim, and a retry after 60 s runs the request again.
 */

export const IDEMPOTENCY_HEADER = 'idempotency-key';
export const REPLAYED_HEADER = 'idempotent-replayed';
export const KEY_TTL_HOURS = 24;
export const ABANDONED_AFTER_SECONDS = 60;
const VALID_KEY = /^[\x20-\x7e]{1,255}$/;

interface Claim {
  tenantId: number;
  userId: number;
  key: string;
}

const claims = new WeakMap<FastifyRequest, Claim>();

export interface IdempotencyOptions {
  db: Db;
  /** Seals stored responses (they may carry personal data, or a webhook secret shown once). */
  secret: string;
}

const PURPOSE = 'idempotent-response';

type Hook = (request: FastifyRequest, reply: FastifyReply, ...rest: never[]) => unknown;
const asArray = (hooks: unknown): Hook[] => (hooks === undefined ? [] : Array.isArray(hooks) ? (hooks as Hook[]) : [hooks as Hook]);

/** A POST that creates something (or accepts work): its schema documents 201 or 202. */
export function isIdempotentRoute(route: Pick<RouteOptions, 'method' | 'schema'>): boolean {
  const methods = Array.isArray(route.method) ? route.method : [route.method];
  const codes = Object.keys((route.schema?.response as Record<string, unknown> | undefined) ?? {});
  return methods.includes('POST') && codes.some((c) => c === '201' || c === '202');
}

function requestHash(request: FastifyRequest): string {
  return crypto.createHash('sha256').update(`${request.method}\n${request.url}\n${JSON.stringify(request.body ?? null)}`).digest('hex');
}

export const idempotencyPlugin = fp(async (app: FastifyInstance, { db, secret }: IdempotencyOptions) => {
  async function preHandler(request: FastifyRequest, reply: FastifyReply) {
    const raw = request.headers[IDEMPOTENCY_HEADER];
    if (raw === undefined || !request.auth) return;
    if (typeof raw !== 'string' || !VALID_KEY.test(raw)) {
      throw new BadRequestError('headers/idempotency-key must be 1 to 255 printable ASCII characters');
    }
    const { tenantId, userId } = request.auth;
    const hash = requestHash(request);
    const outcome = await withTenant(db, tenantId, async (tx) => {
      const claimed = await tx.execute(sql`
        insert into idempotency_keys (tenant_id, user_id, key, request_hash) values (${tenantId}, ${userId}, ${raw}, ${hash})
        on conflict (tenant_id, user_id, key) do update
          set request_hash = excluded.request_hash, status_code = null, response_body = null, response_type = null, created_at = now()
          where idempotency_keys.created_at < now() - make_interval(hours => ${KEY_TTL_HOURS})
             or (idempotency_keys.status_code is null and idempotency_keys.created_at < now() - make_interval(secs => ${ABANDONED_AFTER_SECONDS}))
        returning 1 as claimed`);
      if ((claimed as unknown as { rows: unknown[] }).rows.length > 0) return undefined;
      const found = await tx.execute(sql`
        select request_hash, status_code, response_body, response_type from idempotency_keys
        where tenant_id = ${tenantId} and user_id = ${userId} and key = ${raw}`);
      return (found as unknown as { rows: { request_hash: string; status_code: number | null; response_body: string | null; response_type: string | null }[] }).rows[0];
    });
    if (!outcome) {
      claims.set(request, { tenantId, userId, key: raw });
      return;
    }
    if (outcome.request_hash !== hash) throw new AppError(422, 'Idempotency-Key reused with a different request');
    if (outcome.status_code === null) throw new ConflictError('A request with this Idempotency-Key is still in progress');
    reply.status(outcome.status_code).header(REPLAYED_HEADER, 'true');
    if (outcome.response_type) reply.type(outcome.response_type);
    return reply.send(outcome.response_body ? unseal(outcome.response_body, secret, PURPOSE) : '');
  }

  async function onSend(request: FastifyRequest, reply: FastifyReply, payload: unknown) {
    const claim = claims.get(request);
    if (!claim) return payload;
    claims.delete(request);
    const { tenantId, userId, key } = claim;
    const body = typeof payload === 'string' ? payload : Buffer.isBuffer(payload) ? payload.toString('utf8') : payload == null ? '' : undefined;
    try {
      await withTenant(db, tenantId, async (tx) => {
        if (reply.statusCode >= 500 || body === undefined) {
          // Not stored: a server error may succeed on retry; a stream cannot be replayed.
          await tx.execute(sql`delete from idempotency_keys where tenant_id = ${tenantId} and user_id = ${userId} and key = ${key}`);
        } else {
          const type = reply.getHeader('content-type');
          await tx.execute(sql`update idempotency_keys set status_code = ${reply.statusCode}, response_body = ${body ? seal(body, secret, PURPOSE) : null},
              response_type = ${type === undefined ? null : String(type)}
            where tenant_id = ${tenantId} and user_id = ${userId} and key = ${key}`);
        }
      });
    } catch (err) {
      // The response still goes out; the claim is abandoned and expires after ABANDONED_AFTER_SECONDS.
      request.log.error({ err }, 'could not store the Idempotency-Key response');
    }
    return payload;
  }

  app.addHook('onRoute', (route) => {
    if (!isIdempotentRoute(route)) return;
    route.preHandler = [...asArray(route.preHandler), preHandler] as RouteOptions['preHandler'];
    route.onSend = [...asArray(route.onSend), onSend] as RouteOptions['onSend'];
  });
});
