import crypto from 'node:crypto';
import { sql } from 'drizzle-orm';
import type { FastifyInstance, FastifyReply, FastifyRequest, RouteOptions } from 'fastify';
import fp from 'fastify-plugin';
import type { Config } from '../config.js';
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
 *
 * A stored response is withdrawn when what it shows is gone: a replay then answers 410 with the
 * reason, and the request is not run again (the key stays taken for its 24 hours, so a retry of a
 * create whose thing was deleted never makes it anew behind the user's back):
 * - its thing was deleted: a stored 201 remembers its route and the `id` of its body, and a
 *   successful `DELETE <that route>/:id` withdraws it (a deleted webhook's secret is never handed
 *   back, nor any deleted record);
 * - a person was erased: every stored response of the tenant that holds one of their values
 *   (withdrawResponsesMatching, called by the erase in its transaction).
 */

export const IDEMPOTENCY_HEADER = 'idempotency-key';
export const REPLAYED_HEADER = 'idempotent-replayed';
export const KEY_TTL_HOURS = 24;
export const ABANDONED_AFTER_SECONDS = 60;
export const WITHDRAWN_STATUS = 410;
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

/** The secret stored responses are sealed with (the app's JWT secret, under their own purpose). */
export const idempotencySecret = (config: Pick<Config, 'jwtSecret'>): string => config.jwtSecret;

type Hook = (request: FastifyRequest, reply: FastifyReply, ...rest: never[]) => unknown;
const asArray = (hooks: unknown): Hook[] => (hooks === undefined ? [] : Array.isArray(hooks) ? (hooks as Hook[]) : [hooks as Hook]);

/** A POST that creates something (or accepts work): its schema documents 201 or 202. */
export function isIdempotentRoute(route: Pick<RouteOptions, 'method' | 'schema'>): boolean {
  const methods = Array.isArray(route.method) ? route.method : [route.method];
  const codes = Object.keys((route.schema?.response as Record<string, unknown> | undefined) ?? {});
  return methods.includes('POST') && codes.some((c) => c === '201' || c === '202');
}

/** The collection a `DELETE …/:id` route deletes from: the URL its creates were stored under. */
function deletedCollection(route: Pick<RouteOptions, 'method' | 'url'>): string | undefined {
  const methods = Array.isArray(route.method) ? route.method : [route.method];
  return methods.includes('DELETE') && route.url.endsWith('/:id') ? route.url.slice(0, -'/:id'.length) : undefined;
}

/** The `id` of a created thing's JSON body, if it has one. */
function createdId(statusCode: number, body: string, type: unknown): number | null {
  if (statusCode !== 201 || !String(type ?? '').includes('json')) return null;
  try {
    const id = (JSON.parse(body) as { id?: unknown } | null)?.id;
    return Number.isSafeInteger(id) ? (id as number) : null;
  } catch {
    return null;
  }
}

/** The stored responses of what `route` created with this id are withdrawn (its thing was deleted). */
export async function withdrawCreated(tx: Db, tenantId: number, route: string, resourceId: number, reason: string): Promise<void> {
  await tx.execute(sql`update idempotency_keys set response_body = null, response_type = null, withdrawn = ${reason}
    where tenant_id = ${tenantId} and route = ${route} and resource_id = ${resourceId} and withdrawn is null`);
}

/**
 * Withdraws every stored response of the tenant whose body `matches` (an erased person's values).
 * Bodies are sealed, so the tenant's stored responses (24 hours' worth) are opened here, one read,
 * and the matching ones withdrawn in one statement. Returns how many.
 */
export async function withdrawResponsesMatching(tx: Db, tenantId: number, secret: string, matches: (body: string) => boolean, reason: string): Promise<number> {
  const rows = (await tx.execute(sql`select user_id, key, response_body from idempotency_keys
    where tenant_id = ${tenantId} and response_body is not null for update`)) as unknown as { rows: { user_id: string | number; key: string; response_body: string }[] };
  const hits = rows.rows.filter((r) => matches(unseal(r.response_body, secret, PURPOSE))).map((r) => ({ userId: Number(r.user_id), key: r.key }));
  if (hits.length === 0) return 0;
  await tx.execute(sql`update idempotency_keys k set response_body = null, response_type = null, withdrawn = ${reason}
    from jsonb_to_recordset(${JSON.stringify(hits)}::jsonb) as h("userId" bigint, key text)
    where k.tenant_id = ${tenantId} and k.user_id = h."userId" and k.key = h.key`);
  return hits.length;
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
        select request_hash, status_code, response_body, response_type, withdrawn from idempotency_keys
        where tenant_id = ${tenantId} and user_id = ${userId} and key = ${raw}`);
      return (found as unknown as { rows: { request_hash: string; status_code: number | null; response_body: string | null; response_type: string | null; withdrawn: string | null }[] }).rows[0];
    });
    if (!outcome) {
      claims.set(request, { tenantId, userId, key: raw });
      return;
    }
    if (outcome.request_hash !== hash) throw new AppError(422, 'Idempotency-Key reused with a different request');
    if (outcome.withdrawn !== null) throw new AppError(WITHDRAWN_STATUS, `The response stored for this Idempotency-Key was withdrawn: ${outcome.withdrawn}; the request was not run again`);
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
              response_type = ${type === undefined ? null : String(type)}, route = ${request.routeOptions.url ?? null}, resource_id = ${createdId(reply.statusCode, body, type)}
            where tenant_id = ${tenantId} and user_id = ${userId} and key = ${key}`);
        }
      });
    } catch (err) {
      // The response still goes out; the claim is abandoned and expires after ABANDONED_AFTER_SECONDS.
      request.log.error({ err }, 'could not store the Idempotency-Key response');
    }
    return payload;
  }

  /** After a successful DELETE …/:id (its transaction committed), before the answer goes out. */
  async function onDeleted(request: FastifyRequest, reply: FastifyReply, payload: unknown) {
    const collection = deletedCollection({ method: request.method as RouteOptions['method'], url: request.routeOptions.url ?? '' });
    const id = Number((request.params as { id?: unknown }).id);
    if (!request.auth || !collection || reply.statusCode >= 300 || !Number.isSafeInteger(id)) return payload;
    const { tenantId } = request.auth;
    try {
      await withTenant(db, tenantId, (tx) => withdrawCreated(tx, tenantId, collection, id, `${collection}/${id} was deleted`));
    } catch (err) {
      request.log.error({ err }, 'could not withdraw the stored responses of a deleted thing');
    }
    return payload;
  }

  app.addHook('onRoute', (route) => {
    if (deletedCollection(route)) route.onSend = [...asArray(route.onSend), onDeleted] as RouteOptions['onSend'];
    if (!isIdempotentRoute(route)) return;
    route.preHandler = [...asArray(route.preHandler), preHandler] as RouteOptions['preHandler'];
    route.onSend = [...asArray(route.onSend), onSend] as RouteOptions['onSend'];
  });
});
