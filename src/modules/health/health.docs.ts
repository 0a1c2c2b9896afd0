import type { ModuleDocs } from '../../plugins/operation-docs.js';

/** OpenAPI prose of the health check (merged into the route by the docs plugin). */
export const healthDocs: ModuleDocs = {
  'GET /api/health': {
    summary: 'Health check',
    description: 'For load balancers and probes: 200 `{status: "ok"}` when the database (the primary) answers. '
      + 'With read replicas (`DATABASE_REPLICA_URLS`) it also lists each one\'s state (`ok`, `lagging` past `DATABASE_REPLICA_MAX_LAG`, '
      + 'or `down`) and lag; a replica that is not `ok` takes no reads until a later check (every second) finds it back, '
      + 'and the route stays 200 while the primary answers.',
    errors: { 503: 'Database unavailable' },
  },
};
