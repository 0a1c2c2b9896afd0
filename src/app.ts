import cors from '@fastify/cors';
import helmet from '@fastify/helmet';
import rateLimit from '@fastify/rate-limit';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import Fastify, { type FastifyInstance, type FastifyServerOptions } from 'fastify';
import crypto from 'node:crypto';
import type { Config } from './config.js';
import type { Db } from './db/client.js';
import { logMailer, smtpMailer, type Mailer } from './lib/mailer.js';
import { accessTokenSigner, authPlugin } from './plugins/auth.js';
import { docsPlugin } from './plugins/docs.js';
import { errorsPlugin, frameworkErrors } from './plugins/errors.js';
import { authRoutes } from './modules/auth/auth.routes.js';
import { createAuthService, type AuthService } from './modules/auth/auth.service.js';
import { contactsRoutes } from './modules/contacts/contacts.routes.js';
import { eventsRoutes } from './modules/events/events.routes.js';
import { groupsRoutes } from './modules/groups/groups.routes.js';
import { healthRoutes } from './modules/health/health.routes.js';
import { rolesRoutes } from './modules/roles/roles.routes.js';
import { tenantsRoutes } from './modules/tenants/tenants.routes.js';
import { usersRoutes } from './modules/users/users.routes.js';

export interface AppDeps {
  config: Config;
  db: Db;
  /** Defaults to SMTP when configured, else the log. Tests pass a MemoryMailer. */
  mailer?: Mailer;
  logger?: FastifyServerOptions['logger'];
}

/** What every module's routes plugin receives. */
export interface ModuleOptions {
  db: Db;
  config: Config;
  mailer: Mailer;
  auth: AuthService;
}

export const MB = 1024 * 1024;

/** Builds the HTTP application; does no I/O of its own, so tests build one per database. */
export async function buildApp(deps: AppDeps): Promise<FastifyInstance> {
  const { config, db } = deps;
  const app = Fastify({
    logger: deps.logger ?? {
      level: config.logLevel,
      redact: ['req.headers.authorization', 'req.headers.cookie', '*.password', '*.newPassword', '*.currentPassword', '*.refreshToken'],
    },
    genReqId: () => crypto.randomUUID(),
    trustProxy: config.trustProxy,
    bodyLimit: MB,
    requestTimeout: 30_000,
    // Errors raised before routing (malformed URL encoding, over-long path parameters) keep the error shape.
    frameworkErrors,
  }).withTypeProvider<TypeBoxTypeProvider>();

  const mailer = deps.mailer ?? (config.smtpUrl ? smtpMailer(config.smtpUrl) : logMailer(app.log));

  await app.register(errorsPlugin);
  await app.register(helmet, { global: true });
  await app.register(cors, { origin: config.corsOrigins });
  await app.register(rateLimit, {
    global: false,
    errorResponseBuilder: (_request, context) =>
      Object.assign(new Error(`Too many requests; retry in ${Math.ceil(context.ttl / 1000)} seconds`), { statusCode: 429 }),
  });
  if (config.nodeEnv !== 'production') await app.register(docsPlugin);

  let auth!: AuthService;
  await app.register(authPlugin, { secret: config.jwtSecret, loadPrincipal: (...args) => auth.loadPrincipal(...args) });
  auth = createAuthService({ db, mailer, publicUrl: config.publicUrl, rateLimit: config.authRateLimit, signAccessToken: accessTokenSigner(app) });

  const options: ModuleOptions = { db, config, mailer, auth };
  await app.register(healthRoutes, { prefix: '/api', db });
  await app.register(tenantsRoutes, { prefix: '/api', db });
  await app.register(authRoutes, { prefix: '/api', auth, rateLimit: config.authRateLimit });
  await app.register(usersRoutes, { prefix: '/api/users', ...options });
  await app.register(rolesRoutes, { prefix: '/api/roles', ...options });
  await app.register(contactsRoutes, { prefix: '/api/crm', ...options });
  await app.register(groupsRoutes, { prefix: '/api/groups', ...options });
  await app.register(eventsRoutes, { prefix: '/api/events', ...options });
  return app;
}
