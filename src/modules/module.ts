import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { Config } from '../config.js';
import type { Db } from '../db/client.js';
import type { ReplicaSet } from '../db/replicas.js';
import type { ChangeSubscriber } from '../changes/subscribers.js';
import type { JobHandler, Schedule } from '../jobs/queue.js';
import type { Mailer } from '../lib/mailer.js';
import type { ModuleDocs } from '../plugins/operation-docs.js';
import type { AuthService } from './auth/auth.service.js';

/** What every module's routes plugin receives. */
export interface ModuleOptions {
  db: Db;
  config: Config;
  mailer: Mailer;
  auth: AuthService;
  /** Read replicas, when configured (the health route reports them). */
  replicas?: ReplicaSet;
}

export const MB = 1024 * 1024;

/** What the demo seed (src/provisioning/demo-seed.ts) has built when the modules' demo seeders run. */
export interface DemoContext {
  tenantId: number;
  adminUserId: number;
  /** Group ids by name (see demo-seed.ts TREE). */
  groups: Map<string, number>;
  /** The demo people's contact ids, in PEOPLE order. */
  people: number[];
  /** Extra people (guests and members) created for the modules' demo data. */
  morePeople: number[];
}

/** Adds a module's defaults to a new tenant, inside createTenant's transaction (bound to that tenant). */
export type TenantSeeder = (tx: Db, tenantId: number) => Promise<void>;
/** Adds a module's demo data once the demo tenant's hierarchy and people exist. */
export type DemoSeeder = (db: Db, demo: DemoContext) => Promise<void>;

/**
 * One entry of the module list (src/modules/index.ts): its routes under a prefix with their docs,
 * what it hangs off the change feed and the job queue, and what it adds to a new tenant and to the
 * demo church. Adding a module is one folder and one line in that list.
 */
export interface ParishModule {
  name: string;
  prefix: string;
  routes: FastifyPluginAsyncTypebox<ModuleOptions>;
  /** The prose of each operation (`<module>.docs.ts`), merged into the OpenAPI document. */
  docs: ModuleDocs;
  /** Consumers of the change feed (run by the worker after commit, at least once, in change order). */
  subscribers?: ChangeSubscriber[];
  /** Background job kinds this module enqueues (enqueueJob) and runs. */
  jobs?: Record<string, JobHandler>;
  /** Recurring work, run by one server process at a time. */
  schedules?: Schedule[];
  /** Run for every new tenant (createTenant), in module order. */
  seedTenant?: TenantSeeder;
  /** Run for the demo tenant of a first start, in module order. */
  seedDemo?: DemoSeeder;
}
