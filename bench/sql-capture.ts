import pg from 'pg';

/** One statement as the service sent it to `pg` (the config object keeps name, rowMode and type parsers). */
export interface CapturedQuery {
  text: string;
  values: unknown[];
  config: pg.QueryConfig & { rowMode?: string; types?: unknown };
  /** Rows the service got back (to check that the replay returns the same). */
  rowCount?: number;
  /** Per statement, for a message of several (a request's BEGIN batch): rows each returned. */
  rowCounts?: number[];
}

/**
 * Statements a BEGIN batch prepared (src/db/client.ts: PREPARE name AS sql; EXECUTE name(args)), by
 * name, noted whether a capture is open or not: a connection prepares once, maybe before the capture.
 */
const preparedTexts = new Map<string, string>();
const BATCH = /^\s*begin\b/i;
/** A BEGIN batch's parts: the first holds BEGIN and the binding, each other one statement. */
const batchParts = (text: string) => text.split(/; (?=PREPARE |EXECUTE |COMMIT$)/);

function notePrepared(text: unknown) {
  if (typeof text !== 'string' || !BATCH.test(text)) return;
  for (const part of batchParts(text)) {
    const m = /^PREPARE (\w+)(?:\([^)]*\))? AS ([\s\S]*)$/.exec(part);
    if (m) preparedTexts.set(m[1], m[2]);
  }
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
    notePrepared(typeof args[0] === 'string' ? args[0] : (args[0] as { text?: unknown } | undefined)?.text);
    if (sink) {
      const [first, second] = args;
      // Drizzle passes (config, params); plain callers pass (text, values) or a config with values.
      const base = (typeof first === 'string' ? { text: first } : first) as CapturedQuery['config'];
      const values = (Array.isArray(second) ? second : base.values ?? []) as unknown[];
      const entry: CapturedQuery = { text: base.text, values, config: { ...base, values } };
      sink.push(entry);
      type Result = { rowCount?: number; rows?: unknown[] };
      const count = (r: Result) => {
        if (Array.isArray(r)) entry.rowCounts = (r as Result[]).map((x) => x?.rows?.length ?? x?.rowCount ?? 0);
        entry.rowCount = r?.rows?.length ?? r?.rowCount ?? 0;
      };
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
  const authNames = new Set([...authTexts].flatMap((text) => executes(text).map((e) => e.name)));
  return all.flatMap((q) => {
    // A read ahead (src/db/client.ts AheadOptions) rides in the principal check's BEGIN batch: its
    // EXECUTE, not the auth hook's own, is the request's statement, replayed with its arguments.
    if (BATCH.test(q.text)) {
      return executes(q.text)
        .filter((e) => !authNames.has(e.name) && preparedTexts.has(e.name))
        .map((e): CapturedQuery => {
          const text = preparedTexts.get(e.name)!;
          return { text, values: e.args, config: { text, values: e.args }, rowCount: q.rowCounts?.[e.index + 1] };
        });
    }
    return !CONTROL.test(q.text) && !/set_config\(/i.test(q.text) && !authTexts.has(q.text) ? [q] : [];
  });
}

/** The EXECUTEs of a BEGIN batch: name, integer arguments and the part's index. */
function executes(text: string): { name: string; args: number[]; index: number }[] {
  if (!BATCH.test(text)) return [];
  return batchParts(text).flatMap((part, index) => {
    const m = /^EXECUTE (\w+)(?:\(([^)]*)\))?$/.exec(part);
    return m ? [{ name: m[1], args: m[2] ? m[2].split(', ').map(Number) : [], index }] : [];
  });
}
