import fastifyJwt from '@fastify/jwt';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import fp from 'fastify-plugin';
import { ForbiddenError, UnauthorizedError } from '../lib/errors.js';
import type { Permission } from '../lib/permissions.js';
import { releaseAhead, type LeadingStatement } from '../db/client.js';
import type { ReplicaRouting } from './replicas.js';

/** Who is calling: set on every non-public request by the onRequest hook below. */
export interface Principal {
  userId: number;
  tenantId: number;
  contactId: number;
  username: string;
  /** The refresh-token family this access token was issued with (one login session). */
  sessionId: string;
  permissions: ReadonlySet<Permission>;
}

export interface RouteAccess {
  /** No token needed. */
  public?: boolean;
  /** Any valid token of an active user. */
  authenticated?: boolean;
  /** The permission the caller must hold. */
  permission?: Permission;
  /** A GET that only reads: its transaction is begun READ ONLY (see AheadOptions in src/db/client.ts). */
  readOnly?: boolean;
  /** A GET answered by one read of the caller's tenant and user ids, run with the principal check (AheadOptions.readAhead). */
  readAhead?: LeadingStatement;
}

/** What the route-walk test inspects: every route registered after the auth plugin. */
export interface RegisteredRoute {
  method: string | string[];
  url: string;
  config?: RouteAccess;
  schema?: { response?: Record<string, unknown> };
}

declare module 'fastify' {
  interface FastifyContextConfig extends RouteAccess {}
  interface FastifyRequest {
    auth: Principal;
  }
  interface FastifyInstance {
    registeredRoutes: readonly RegisteredRoute[];
  }
}

interface AccessClaims {
  sub: string;
  tid: number;
  sid: string;
  typ: string;
}

declare module '@fastify/jwt' {
  interface FastifyJWT {
    payload: AccessClaims;
    user: AccessClaims & { iat: number; exp: number; iss: string; aud: string };
  }
}

const BODYLESS = new Set(['GET', 'HEAD']);

export const ACCESS_TOKEN_TTL_SECONDS = 15 * 60;
const ISSUER = 'parish';
const CLOCK_TOLERANCE_MS = 30_000;
/** Verified tokens remembered at most (about 400 bytes each); the map starts over when full. */
const VERIFIED_TOKENS = 10_000;
const AUDIENCE = 'parish-api';

export interface AuthPluginOptions {
  secret: string;
  /**
   * Loads the active user with its effective permissions, or undefined when missing or disabled;
   * with `beginTransaction`, it may also begin the request's tenant transaction (handed to the
   * principal: see beginTenantAhead in src/db/client.ts).
   */
  loadPrincipal(tenantId: number, userId: number, sessionId: string, options: { beginTransaction: boolean; readOnly?: boolean; readAhead?: LeadingStatement }): Promise<Principal | undefined>;
  /** With read replicas: a read-only route's principal is checked on the primary and its work runs on a replica. */
  replicas?: ReplicaRouting;
}

/**
 * Verifies the bearer token (HS256 pinned, every claim required, typ access), loads the user per
 * request (so disabling an account or changing its roles takes effect at once) and enforces the
 * route's `config.permission` — in one place for all routes.
 */
export const authPlugin = fp(async (app: FastifyInstance, opts: AuthPluginOptions) => {
  await app.register(fastifyJwt, {
    secret: opts.secret,
    sign: { algorithm: 'HS256', iss: ISSUER, aud: AUDIENCE, expiresIn: ACCESS_TOKEN_TTL_SECONDS },
    verify: {
      algorithms: ['HS256'],
      allowedIss: ISSUER,
      allowedAud: AUDIENCE,
      requiredClaims: ['sub', 'tid', 'sid', 'typ', 'iat', 'exp', 'iss', 'aud'],
      clockTolerance: CLOCK_TOLERANCE_MS,
    },
  });

  app.decorateRequest('auth', null as unknown as Principal);

  /**
   * The bearer token's claims: verified once by the plugin's own verifier (HS256 pinned, every claim
   * required; request.jwtVerify would decode the token twice and run a callback waterfall per request)
   * and remembered until the token expires, so a client's next requests with the same token skip
   * the decoding and the HMAC. Only tokens that verified are remembered; the principal is still
   * loaded on every request, so disabling a user or changing roles takes effect at once.
   */
  const verified = new Map<string, { claims: AccessClaims; until: number }>();
  function verifyBearer(header: string | undefined): AccessClaims {
    if (!header || !/^Bearer\s/i.test(header)) throw new UnauthorizedError('Missing bearer token');
    const parts = header.split(' ');
    if (parts.length !== 2 || !parts[1]) throw new UnauthorizedError('Invalid or expired token');
    const token = parts[1];
    const now = Date.now();
    const known = verified.get(token);
    if (known && now <= known.until) return known.claims;
    const claims = app.jwt.verify<AccessClaims & { exp: number }>(token);
    if (verified.size >= VERIFIED_TOKENS) verified.clear();
    verified.set(token, { claims, until: claims.exp * 1000 + CLOCK_TOLERANCE_MS });
    return claims;
  }

  // The route options objects themselves: hooks that run later may still adjust their config.
  const registered: RegisteredRoute[] = [];
  app.decorate('registeredRoutes', registered);
  app.addHook('onRoute', (route) => void registered.push(route as RegisteredRoute));

  app.addHook('onRequest', async (request: FastifyRequest) => {
    const access = request.routeOptions.config as RouteAccess | undefined;
    if (request.is404 || access?.public) return;
    const claims = verifyBearer(request.headers.authorization);
    const userId = Number(claims.sub);
    if (claims.typ !== 'access' || !Number.isSafeInteger(userId) || !Number.isSafeInteger(claims.tid) || typeof claims.sid !== 'string') {
      throw new UnauthorizedError('Invalid or expired token');
    }
    // A bodyless read's handler follows at once, so its principal check begins its transaction too
    // (one round trip fewer). Not for requests with a body: a slow upload would hold a connection.
    const bodyless = BODYLESS.has(request.method);
    const replica = bodyless && access?.readOnly ? opts.replicas?.pick(request) : undefined;
    const principal = await opts.loadPrincipal(claims.tid, userId, claims.sid, {
      beginTransaction: bodyless && !replica,
      readOnly: bodyless && access?.readOnly,
      readAhead: bodyless && !replica ? access?.readAhead : undefined,
    });
    if (!principal) throw new UnauthorizedError('Invalid or expired token');
    request.auth = principal;
    if (access?.permission && !principal.permissions.has(access.permission)) {
      releaseAhead(principal);
      throw new ForbiddenError(`Missing permission ${access.permission}`);
    }
    if (replica) await opts.replicas!.begin(replica, principal);
  });

  // A transaction begun for the request that its handler did not use ends with the request.
  const release = async (request: FastifyRequest) => {
    if (request.auth) releaseAhead(request.auth);
  };
  app.addHook('onSend', release);
  app.addHook('onResponse', release);
  app.addHook('onRequestAbort', release);
});

export type SignAccessToken = (claims: { tenantId: number; userId: number; sessionId: string }) => string;

export function accessTokenSigner(app: FastifyInstance): SignAccessToken {
  return ({ tenantId, userId, sessionId }) => app.jwt.sign({ sub: String(userId), tid: tenantId, sid: sessionId, typ: 'access' });
}
