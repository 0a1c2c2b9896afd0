import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { BadRequestError, UnauthorizedError } from '../../lib/errors.js';
import { errors, NoContent } from '../../lib/schemas.js';
import type { ModuleOptions } from '../module.js';
import {
  ForgotPasswordBody, LoginBody, MessageResponse, RefreshBody, RegisterBody, RegisterResponse,
  ResetPasswordBody, ResetPasswordParams, TokenResponse,
} from './auth.schemas.js';
import { clearRefreshCookie, readRefreshCookie, setRefreshCookie } from './auth.cookie.js';
import { REFRESH_TTL_MS } from './auth.service.js';

/** /api/auth/* and POST /api/register: all public (api-contract §3). */
export const authRoutes: FastifyPluginAsyncTypebox<ModuleOptions> = async (app, { auth, config }) => {
  const rateLimit = config.authRateLimit;
  // Login and forgot-password share one per-IP budget, checked before any hashing (and before
  // validation). One limiter instance for both: @fastify/rate-limit gives every route config its own
  // in-memory store, so a shared `groupId` would not actually share the count.
  const perIp = app.rateLimit({ max: rateLimit.ipPerMinute, timeWindow: '1 minute' });
  const tags = ['auth'];
  const cookieMaxAge = REFRESH_TTL_MS / 1000;
  /** The console's form: the refresh token goes into the cookie and out of the body. */
  const intoCookie = <T extends { refreshToken: string }>(request: FastifyRequest, reply: FastifyReply, { refreshToken, ...rest }: T) => {
    setRefreshCookie(request, reply, config.nodeEnv, refreshToken, cookieMaxAge);
    return rest;
  };

  app.post('/auth/login', {
    config: { public: true },
    onRequest: perIp,
    schema: { tags, security: [], body: LoginBody, response: { 200: TokenResponse, ...errors(400, 401, 429) } },
    handler: async (request, reply) => {
      const tokens = await auth.login(request.body);
      return request.body.refreshCookie ? intoCookie(request, reply, tokens) : tokens;
    },
  });

  app.post('/auth/refresh', {
    config: { public: true },
    schema: { tags, security: [], body: RefreshBody, response: { 200: TokenResponse, ...errors(400, 401) } },
    handler: async (request, reply) => {
      if (request.body.refreshToken !== undefined) return auth.refresh(request.body.refreshToken);
      const cookie = readRefreshCookie(request);
      if (!cookie) throw new UnauthorizedError('No refresh token: send refreshToken in the body or the parish_refresh cookie');
      try {
        return intoCookie(request, reply, await auth.refresh(cookie));
      } catch (err) {
        clearRefreshCookie(request, reply, config.nodeEnv);
        throw err;
      }
    },
  });

  app.post('/auth/logout', {
    config: { public: true },
    schema: { tags, security: [], body: RefreshBody, response: { 204: NoContent, ...errors(400) } },
    handler: async (request, reply) => {
      const token = request.body.refreshToken ?? readRefreshCookie(request);
      if (token !== undefined) await auth.logout(token);
      if (request.body.refreshToken === undefined) clearRefreshCookie(request, reply, config.nodeEnv);
      return reply.status(204).send(null);
    },
  });

  app.post('/auth/forgot-password', {
    config: { public: true },
    onRequest: perIp,
    schema: { tags, security: [], body: ForgotPasswordBody, response: { 202: MessageResponse, ...errors(400, 429) } },
    handler: async (request, reply) => {
      if (!request.body.username && !request.body.email) throw new BadRequestError('body must have username or email');
      return reply.status(202).send(await auth.forgotPassword(request.body));
    },
  });

  app.put('/auth/reset-password/:token', {
    config: { public: true },
    schema: { tags, security: [], params: ResetPasswordParams, body: ResetPasswordBody, response: { 200: MessageResponse, ...errors(400) } },
    handler: (request) => auth.resetPassword(request.params.token, request.body.password),
  });

  app.post('/register', {
    config: { public: true },
    schema: { tags, security: [], body: RegisterBody, response: { 201: RegisterResponse, ...errors(400, 403, 404, 409) } },
    handler: async (request, reply) => reply.status(201).send(await auth.register(request.body)),
  });
};
