import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { ModuleOptions, ParishModule } from '../module.js';
import { contributionsRoutes } from './contributions.routes.js';
import { financeDocs } from './finance.docs.js';
import { seedFinanceDemo } from './finance.seed.js';
import { fundsBatchesRoutes } from './funds-batches.routes.js';
import { pledgesRoutes } from './pledges.routes.js';
import { statementsRoutes } from './statements.routes.js';

const routes: FastifyPluginAsyncTypebox<ModuleOptions> = async (app, { db, config, mailer, auth }) => {
  // Only the module options go on: the prefix Fastify put among them must not apply twice.
  const options: ModuleOptions = { db, config, mailer, auth };
  await app.register(fundsBatchesRoutes, options);
  await app.register(contributionsRoutes, options);
  await app.register(pledgesRoutes, options);
  await app.register(statementsRoutes, options);
};

/**
 * Finance (modules-contract §3): funds, batches with control totals, contributions with split lines
 * in integer minor units, refunds, imports, CSV export, pledges, statements (JSON, CSV, PDF, bulk
 * ZIP), the summary and the caller's own giving. Tenant-wide, never hierarchy-scoped.
 */
export const financeModule: ParishModule = {
  name: 'finance',
  prefix: '/api/finance',
  routes,
  docs: financeDocs,
  seedDemo: seedFinanceDemo,
};
