/**
 * Start-up progress for an operator: each phase of a start is one line on stdout, begun when the
 * phase begins (so a slow step says what it is doing) and ended with its time:
 *
 *   parish: opening the database (PGlite in ./data) … 0.8 s
 *
 * scripts/build.mjs prints its lines in the same form (it runs before the bundle exists).
 */
export interface Phases {
  /** Runs fn as one phase; `result` adds a note after the time, e.g. "34 migrations applied". */
  run<T>(label: string, fn: () => Promise<T>, result?: (value: T) => string | undefined): Promise<T>;
  /** A line without a phase (the last one: listening on …), with the time since the process started. */
  done(text: string): void;
}

const seconds = (ms: number) => `${(ms / 1000).toFixed(1)} s`;

export function phases(out: { write(text: string): unknown } = process.stdout): Phases {
  return {
    async run(label, fn, result) {
      out.write(`parish: ${label} … `);
      const started = performance.now();
      try {
        const value = await fn();
        const note = result?.(value);
        out.write(`${seconds(performance.now() - started)}${note ? ` (${note})` : ''}\n`);
        return value;
      } catch (err) {
        out.write(`failed after ${seconds(performance.now() - started)}\n`);
        throw err;
      }
    },
    done(text) {
      // performance.now() counts from the process's start: module loading is included.
      out.write(`parish: ${text} (ready ${seconds(performance.now())} after the process started)\n`);
    },
  };
}
