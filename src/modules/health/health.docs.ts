import type { ModuleDocs } from '../../plugins/operation-docs.js';

/** OpenAPI prose of the health check (merged into the route by the docs plugin). */
export const healthDocs: ModuleDocs = {
  'GET /api/health': {
    summary: 'Health check',
    description: 'For load balancers and probes: 200 `{status: "ok"}` when the database answers.',
    errors: { 503: 'Database unavailable' },
  },
};
