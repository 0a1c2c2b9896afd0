/**
 * A typed client of the Parish API: openapi-fetch over the types openapi-typescript generates from
 * the committed openapi.json (`npm run client` regenerates client/schema.d.ts; `npm run openapi`
 * regenerates both). Paths, parameters, bodies and responses are checked by the compiler.
 *
 *   const parish = createParishClient({ baseUrl: 'https://parish.example.org' });
 *   const { data } = await parish.POST('/api/auth/login', { body: { churchName, username, password } });
 *   parish.setToken(data!.accessToken);
 *   const contacts = await parish.GET('/api/crm/contacts', { params: { query: { q: 'adams' } } });
 */
import createClient, { type Client } from 'openapi-fetch';
import type { paths } from './schema.js';

export type { components, operations, paths } from './schema.js';

export interface ParishClientOptions {
  /** Where the API is served, without `/api` (e.g. `https://parish.example.org`). */
  baseUrl: string;
  /** An access token to start with (else call setToken after logging in). */
  accessToken?: string;
  /** A fetch implementation (defaults to the global one). */
  fetch?: typeof globalThis.fetch;
}

export type ParishClient = Client<paths> & {
  /** Sends `Authorization: Bearer <token>` on every later request; undefined stops sending it. */
  setToken(token: string | undefined): void;
};

export function createParishClient(options: ParishClientOptions): ParishClient {
  let token = options.accessToken;
  const client = createClient<paths>({ baseUrl: options.baseUrl, ...(options.fetch ? { fetch: options.fetch } : {}) });
  client.use({
    onRequest({ request }) {
      if (token) request.headers.set('authorization', `Bearer ${token}`);
      return request;
    },
  });
  return Object.assign(client, { setToken: (next: string | undefined) => void (token = next) });
}
