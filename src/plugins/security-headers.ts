import type { ServerResponse } from 'node:http';
import type { FastifyInstance } from 'fastify';
import fp from 'fastify-plugin';
import helmet from 'helmet';

type Header = [name: string, value: string | string[]];

/**
 * What helmet's default middleware does to a response: the headers it sets and those it removes.
 * Found once, by running it on a stand-in response; the defaults hold no per-request value (no CSP
 * nonces), so every response gets the same.
 */
export function helmetDefaults(): { set: Header[]; removed: string[] } {
  const set: Header[] = [];
  const removed: string[] = [];
  const response = {
    setHeader: (name: string, value: string | string[]) => void set.push([name, value]),
    removeHeader: (name: string) => void removed.push(name),
    getHeader: () => undefined,
    hasHeader: () => false,
  };
  let failed: unknown;
  helmet()({} as never, response as unknown as ServerResponse, (err?: unknown) => void (failed = err));
  if (failed) throw failed;
  return { set, removed };
}

/**
 * The security headers of helmet's defaults (api-contract: helmet) on every response, as
 * @fastify/helmet sets them (an onRequest hook on the raw response, so errors and 404s carry them
 * too), without rebuilding helmet's middleware and its Content-Security-Policy per request
 * (@fastify/helmet calls helmet(options) in every request's hook).
 */
export const securityHeadersPlugin = fp(async (app: FastifyInstance) => {
  const { set, removed } = helmetDefaults();
  app.addHook('onRequest', (_request, reply, done) => {
    const res = reply.raw;
    for (const name of removed) res.removeHeader(name);
    for (const [name, value] of set) res.setHeader(name, value);
    done();
  });
});
