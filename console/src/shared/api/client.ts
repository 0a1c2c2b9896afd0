import { createParishClient, type paths } from '../../../../client/index.js';

/** The JSON request body of an operation, e.g. RequestBody<'/api/crm/contacts/{id}', 'put'>. */
export type RequestBody<P extends keyof paths, M extends keyof paths[P]> =
  paths[P][M] extends { requestBody?: { content: { 'application/json': infer B } } } ? B : never;

/**
 * The one API client of the console: the typed client over this origin's /api. The access token
 * lives only in this module's memory (console.md "Tokens"); the refresh token is an HttpOnly cookie
 * the browser sends to /api/auth by itself.
 */
export const api = createParishClient({ baseUrl: window.location.origin });

export interface TokenAnswer {
  accessToken: string;
  expiresIn: number;
  user: { id: number; username: string; email: string | null; contactId: number; roles: string[]; permissions: string[] };
}

let accessToken: string | undefined;
let refreshing: Promise<TokenAnswer | undefined> | undefined;
let listeners: { refreshed(tokens: TokenAnswer): void; lost(): void } | undefined;

/** Sets the in-memory access token (undefined signs the client out). */
export function setAccessToken(token: string | undefined): void {
  accessToken = token;
  api.setToken(token);
}

/** The session provider listens here: new tokens, or a session that cannot be renewed. */
export function onSession(handlers: { refreshed(tokens: TokenAnswer): void; lost(): void }): void {
  listeners = handlers;
}

/** Exchanges the refresh cookie for a new access token; one exchange at a time. */
export function refreshSession(): Promise<TokenAnswer | undefined> {
  refreshing ??= (async () => {
    try {
      const { data } = await api.POST('/api/auth/refresh', { body: {} });
      if (!data) return undefined;
      setAccessToken(data.accessToken);
      listeners?.refreshed(data);
      return data;
    } catch {
      return undefined;
    } finally {
      refreshing = undefined;
    }
  })();
  return refreshing;
}

// An expired access token (a laptop woken from sleep): renew it once and repeat a read. A write is
// not repeated (its body is gone); its error reaches the screen, and the next try works.
api.use({
  async onResponse({ request, response }) {
    if (response.status !== 401 || new URL(request.url).pathname.startsWith('/api/auth/') || !accessToken) return undefined;
    if (!(await refreshSession())) {
      listeners?.lost();
      return undefined;
    }
    if (request.method !== 'GET') return undefined;
    const headers = new Headers(request.headers);
    headers.set('authorization', `Bearer ${accessToken}`);
    return fetch(request.url, { headers });
  },
});
