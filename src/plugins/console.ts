import fastifyStatic from '@fastify/static';
import type { FastifyInstance, FastifyReply } from 'fastify';
import fs from 'node:fs';
import { fileURLToPath } from 'node:url';

/** Where `npm run build:console` (Vite) writes the console; the same path under tsx and in the bundle. */
export const CONSOLE_DIR = fileURLToPath(new URL('../../dist/console/', import.meta.url));

const NOT_BUILT = `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>Parish</title></head>
<body><h1>Parish</h1>
<p>The API is running, but the office console is not built.</p>
<p>Run <code>npm run build:console</code> (or <code>npm start</code>, which builds it), then reload this page.
The API itself is under <a href="/api/health">/api</a>.</p>
</body></html>
`;

/**
 * The office console (console.md "Shape") at `/`: the files Vite built into dist/console, hashed
 * assets cached for a year, and every other GET outside /api answered with index.html so the
 * console's own routes (/people/12, /reset-password/<token>) load on reload and from email links.
 * Without a build, those paths answer a short page saying so. /api paths keep the JSON 404.
 */
export async function consolePlugin(app: FastifyInstance, { root = CONSOLE_DIR }: { root?: string } = {}): Promise<void> {
  // The console's files are public (its screens call the API with the user's token).
  app.addHook('onRoute', (route) => void (route.config = { ...(route.config ?? {}), public: true }));
  const built = fs.existsSync(`${root}/index.html`);
  if (built) {
    await app.register(fastifyStatic, {
      root,
      wildcard: false,
      index: false,
      setHeaders: (res, file) => {
        res.header('cache-control', file.includes('/assets/') ? 'public, max-age=31536000, immutable' : 'no-cache');
      },
    });
  }
  const appPage = (reply: FastifyReply) => {
    if (!built) return reply.type('text/html; charset=utf-8').send(NOT_BUILT);
    return reply.header('cache-control', 'no-cache').sendFile('index.html');
  };
  app.get('/', { schema: { hide: true } }, (_request, reply) => appPage(reply));
  app.get('/*', { schema: { hide: true } }, (request, reply) => {
    const path = request.url.split('?')[0];
    if (path === '/api' || path.startsWith('/api/') || path.startsWith('/assets/')) return reply.callNotFound();
    return appPage(reply);
  });
}
