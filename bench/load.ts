import autocannon from 'autocannon';

export interface HttpRequest {
  method: 'GET' | 'POST' | 'PUT';
  path: string;
  body?: unknown;
}

export interface LoadTarget {
  baseUrl: string;
  token?: string;
  /** A fixed request, or one built per request (writes that must not repeat). */
  request: HttpRequest | (() => HttpRequest);
}

export interface LoadOptions {
  connections: number;
  duration: number;
}

export interface LoadResult {
  rps: number;
  p50: number;
  p99: number;
  non2xx: number;
  errors: number;
}

function headers(token: string | undefined, body: unknown): Record<string, string> {
  return { ...(token ? { authorization: `Bearer ${token}` } : {}), ...(body === undefined ? {} : { 'content-type': 'application/json' }) };
}

/** One autocannon run against a target; throws when most answers are not 2xx (a broken scenario must not look fast). */
export async function runLoad(target: LoadTarget, opts: LoadOptions): Promise<LoadResult> {
  const fixed = typeof target.request === 'function' ? undefined : target.request;
  const build = typeof target.request === 'function' ? target.request : undefined;
  const result = await autocannon({
    url: target.baseUrl,
    connections: opts.connections,
    duration: opts.duration,
    requests: [
      fixed
        ? { method: fixed.method, path: fixed.path, headers: headers(target.token, fixed.body), body: fixed.body === undefined ? undefined : JSON.stringify(fixed.body) }
        : {
            setupRequest: (req) => {
              const r = build!();
              return { ...req, method: r.method, path: r.path, headers: headers(target.token, r.body), body: r.body === undefined ? undefined : JSON.stringify(r.body) };
            },
          },
    ],
  });
  const ok = result['2xx'];
  if (result.non2xx > ok) throw new Error(`${result.non2xx} non-2xx answers against ${ok} 2xx`);
  return { rps: result.requests.average, p50: result.latency.p50, p99: result.latency.p99, non2xx: result.non2xx, errors: result.errors };
}

/** One plain request (checks, captures, logins, imports); returns the status, the parsed body and the time it took. */
export async function send(baseUrl: string, req: HttpRequest, token?: string) {
  const started = performance.now();
  const res = await fetch(baseUrl + req.path, { method: req.method, headers: headers(token, req.body), body: req.body === undefined ? undefined : JSON.stringify(req.body) });
  const text = await res.text();
  let body: unknown = text;
  try {
    body = JSON.parse(text);
  } catch {
    // not JSON
  }
  return { status: res.status, body, ms: performance.now() - started };
}

export const median = (xs: number[]) => {
  const s = [...xs].sort((a, b) => a - b);
  const m = Math.floor(s.length / 2);
  return s.length % 2 ? s[m] : (s[m - 1] + s[m]) / 2;
};
