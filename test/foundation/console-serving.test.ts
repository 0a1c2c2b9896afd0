import Fastify from 'fastify';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { consolePlugin } from '../../src/plugins/console.js';
import { errorsPlugin } from '../../src/plugins/errors.js';

/** The console's serving (src/plugins/console.ts) on a stand-in build, and without one. */
async function appWith(root: string) {
  const app = Fastify();
  await app.register(errorsPlugin);
  await app.register(consolePlugin, { root });
  return app;
}

const built = fs.mkdtempSync(path.join(os.tmpdir(), 'parish-console-'));
fs.mkdirSync(path.join(built, 'assets'));
fs.writeFileSync(path.join(built, 'index.html'), '<!doctype html><title>Parish</title><script type="module" src="/assets/app-1a2b.js"></script>');
fs.writeFileSync(path.join(built, 'assets/app-1a2b.js'), 'console.log(1)');
afterAll(() => fs.rmSync(built, { recursive: true, force: true }));

describe('serving the console', () => {
  it('answers index.html (not cached) at / and every other path outside /api, and hashed assets with a year of cache', async () => {
    const app = await appWith(built);
    for (const url of ['/', '/people/12', '/reset-password/abc?church=grace']) {
      const res = await app.inject(url);
      expect(res.statusCode, url).toBe(200);
      expect(res.headers['content-type']).toMatch(/^text\/html/);
      expect(res.headers['cache-control']).toBe('no-cache');
      expect(res.body).toContain('<title>Parish</title>');
    }
    const asset = await app.inject('/assets/app-1a2b.js');
    expect(asset.statusCode).toBe(200);
    expect(asset.headers['cache-control']).toBe('public, max-age=31536000, immutable');
  });

  it('keeps the JSON 404 for /api and for missing assets', async () => {
    const app = await appWith(built);
    for (const url of ['/api', '/api/nope', '/assets/gone.js']) {
      const res = await app.inject(url);
      expect(res.statusCode, url).toBe(404);
      expect(res.json()).toEqual({ statusCode: 404, error: 'Not Found', message: `Route GET ${url} not found` });
    }
  });

  it('without a build, / says the console is not built and how to build it (HTML, not a JSON 404)', async () => {
    const app = await appWith(path.join(built, 'missing'));
    const res = await app.inject('/');
    expect(res.statusCode).toBe(200);
    expect(res.headers['content-type']).toMatch(/^text\/html/);
    expect(res.body).toContain('console is not built');
    expect(res.body).toContain('npm run build:console');
    expect((await app.inject('/api/nope')).statusCode).toBe(404);
  });
});
