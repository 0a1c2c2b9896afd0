import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { Config } from '../config.js';
import type { Db } from '../db/client.js';
import type { ChangeSubscriber } from '../changes/subscribers.js';
import type { JobHandler, Schedule } from '../jobs/queue.js';
import type { Mailer } from '../lib/mailer.js';
import type { AuthService } from './auth/auth.service.js';

/** What every module's routes plugin receives. */
export interface ModuleOptions {
  db: Db;
  config: Config;
  mailer: Mailer;
  auth: AuthService;
}

export const MB = 1024 * 1024;

/**
 * One entry of the module list (src/modules/index.ts): its routes under a prefix, and what it hangs
 * off the change feed and the job queue. Adding a module is one folder and one line in that list.
 */
export interface ParishModule {
  name: string;
  prefix: string;
  routes: FastifyPluginAsyncTypebox<ModuleOptions>;
  /** Consumers of the change feed (run by the worker after commit, at least once, in change order). */
  subscribers?: ChangeSubscriber[];
  /** Background job kinds this module enqueues (enqueueJob) and runs. */
  jobs?: Record<string, JobHandler>;
  /** Recurring work, run by one server process at a time. */
  schedules?: Schedule[];
}
