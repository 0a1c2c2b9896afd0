import pg from 'pg';

/** One statement as the service sent it to `pg` (the config object keeps name, rowMode and type parsers). */
export interface CapturedQuery {
  text: string;
  values: unknown[];
  config: pg.QueryConfig & { rowMode?: string; types?: unknown };
  /** Rows the service got back (to check that the replay returns the same). */
  rowCount?: number;
}

let sink: CapturedQuery[] | undefined;
let installed = false;

/**
 * Records every statement sent through any pg.Client (pool clients included) while a capture is
 * open. The service's own code is untouched: this is the driver's entry point.
 */
export function installCapture() {
  if (installed) return;
  installed = true;
  const original = pg.Client.prototype.query as (...args: unknown[]) => unknown;
  pg.Client.prototype.query = function (this: pg.Client, ...args: unknown[]) {
    if (sink) {
      const [first, second] = args;
      // Drizzle passes (config, params); plain callers pass (text, values) or a config with values.
      const base = (typeof first === 'string' ? { text: first } : first) as CapturedQuery['config'];
      const values = (Array.isArray(second) ? second : base.values ?? []) as unknown[];
      const entry: CapturedQuery = { text: base.text, values, config: { ...base, values } };
      sink.push(entry);
      type Result = { rowCount?: number; rows?: unknown[] };
      const count = (r: Result) => (entry.rowCount = r?.rows?.length ?? r?.rowCount ?? 0);
      // pg.Pool#query (Drizzle's prepared queries on the pool, e.g. the principal check of a request
      // with a body) calls client.query with a callback and gets no promise back: count there.
      const last = args.length - 1;
      if (typeof args[last] === 'function') {
        const callback = args[last] as (err: Error | null, r: Result) => void;
        args[last] = (err: Error | null, r: Result) => {
          if (!err) count(r);
          callback(err, r);
        };
      }
      const result = original.apply(this, args);
      if (result instanceof Promise) result.then(count, () => {});
      return result;
    }
    return original.apply(this, args);
  } as typeof pg.Client.prototype.query;
}

export function startCapture() {
  sink = [];
}

export function stopCapture(): CapturedQuery[] {
  const out = sink ?? [];
  sink = undefined;
  return out;
}

const CONTROL = /^\s*(begin|commit|rollback|savepoint|release)\b/i;

/**
 * The service's own SQL of one request: without transaction control, the RLS binding
 * (set_config) and the statements the auth hook ran (`authTexts`, captured from a request that
 * stopped after authentication).
 */
export function serviceStatements(all: CapturedQuery[], authTexts: Set<string>): CapturedQuery[] {
  return all.filter((q) => !CONTROL.test(q.text) && !/set_config\(/i.test(q.text) && !authTexts.has(q.text));
}
