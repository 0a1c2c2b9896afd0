import cors from '@fastify/cors';
import rateLimit from '@fastify/rate-limit';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import Fastify, { type FastifyInstance, type FastifyServerOptions } from 'fastify';
import crypto from 'node:crypto';
import type { Config } from './config.js';
import type { Db } from './db/client.js';
import type { ReplicaSet } from './db/replicas.js';
import { logMailer, smtpMailer, type Mailer } from './lib/mailer.js';
import { accessTokenSigner, authPlugin } from './plugins/auth.js';
import { lazySerializers } from './plugins/compilers.js';
import { consolePlugin } from './plugins/console.js';
import { contentTypesPlugin } from './plugins/content-types.js';
import { docsPlugin } from './plugins/docs.js';
import { errorsPlugin, frameworkErrors } from './plugins/errors.js';
import { idempotencyPlugin, idempotencySecret } from './plugins/idempotency.js';
import { optionalBodyPlugin } from './plugins/optional-body.js';
import { queryParamsPlugin } from './plugins/query-params.js';
import { replicaRouting, replicasPlugin } from './plugins/replicas.js';
import { securityHeadersPlugin } from './plugins/security-headers.js';
import { createAuthService, type AuthService } from './modules/auth/auth.service.js';
import { API_DOCS, MODULES } from './modules/index.js';
import { MB, type ModuleOptions } from './modules/module.js';
import { createWorker, type Worker } from './jobs/worker.js';


declare module 'fastify' {
  interface FastifyInstance {
    /** The background worker: server.ts starts it; tests drain it. */
    worker: Worker;
  }
}

export interface AppDeps {
  config: Config;
  db: Db;
  /** Defaults to SMTP when configured, else the log. Tests pass a MemoryMailer. */
  mailer?: Mailer;
  logger?: FastifyServerOptions['logger'];
  /** Read replicas: read-only routes run on them (src/plugins/replicas.ts). */
  replicas?: ReplicaSet;
}

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
    schemaController: lazySerializers,
  }).withTypeProvider<TypeBoxTypeProvider>();

  const mailer = deps.mailer ?? (config.smtpUrl ? smtpMailer(config.smtpUrl, config.mailFrom) : logMailer(app.log));

  await app.register(errorsPlugin);
  await app.register(contentTypesPlugin);
  await app.register(queryParamsPlugin);
  await app.register(optionalBodyPlugin);
  await app.register(securityHeadersPlugin);
  await app.register(cors, { origin: config.corsOrigins });
  await app.register(rateLimit, {
    global: false,
    errorResponseBuilder: (_request, context) =>
      Object.assign(new Error(`Too many requests; retry in ${Math.ceil(context.ttl / 1000)} seconds`), { statusCode: 429 }),
  });
  if (config.nodeEnv !== 'production') await app.register(docsPlugin, { docs: API_DOCS });

  let auth!: AuthService;
  await app.register(authPlugin, {
    secret: config.jwtSecret,
    loadPrincipal: (...args) => auth.loadPrincipal(...args),
    replicas: deps.replicas && replicaRouting(deps.replicas, db),
  });
  if (deps.replicas) await app.register(replicasPlugin, { replicas: deps.replicas });
  await app.register(idempotencyPlugin, { db, secret: idempotencySecret(config) });
  auth = createAuthService({ db, mailer, publicUrl: config.publicUrl, rateLimit: config.authRateLimit, signAccessToken: accessTokenSigner(app) });

  const options: ModuleOptions = { db, config, mailer, auth, replicas: deps.replicas };
  for (const module of MODULES) await app.register(module.routes, { prefix: module.prefix, ...options });
  await app.register(consolePlugin);

  const worker = createWorker({
    db, mailer, config, log: app.log,
    subscribers: MODULES.flatMap((m) => m.subscribers ?? []),
    jobs: Object.assign({}, ...MODULES.map((m) => m.jobs ?? {})),
    schedules: MODULES.flatMap((m) => m.schedules ?? []),
  });
  app.decorate('worker', worker);
  app.addHook('onClose', async () => {
    await worker.stop();
    if (!deps.mailer) mailer.close?.();
  });
  return app;
}
