import swagger from '@fastify/swagger';
import swaggerUi from '@fastify/swagger-ui';
import type { FastifyInstance } from 'fastify';
import fp from 'fastify-plugin';

/** OpenAPI document from the route schemas; Swagger UI at /api/docs (not registered in production). */
export const docsPlugin = fp(async (app: FastifyInstance) => {
  // The docs are public (api-contract §4): mark the UI's routes so the auth hook skips them.
  app.addHook('onRoute', (route) => {
    if (route.url === '/api/docs' || route.url.startsWith('/api/docs/')) route.config = { ...(route.config ?? {}), public: true };
  });
  await app.register(swagger, {
    openapi: {
      openapi: '3.0.3',
      info: { title: 'Parish API', version: '0.1.0', description: 'Multi-tenant church management service' },
      components: { securitySchemes: { bearer: { type: 'http', scheme: 'bearer', bearerFormat: 'JWT' } } },
      security: [{ bearer: [] }],
    },
  });
  await app.register(swaggerUi, { routePrefix: '/api/docs', uiConfig: { docExpansion: 'list' } });
});
