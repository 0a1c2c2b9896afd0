/** Types for scripts/build.mjs (imported by bench/server-process.ts). */
import type { LogLevel } from 'esbuild';

/** Packages (and their subpaths) left as imports of the bundle. */
export declare const EXTERNAL: string[];

/**
 * Bundles one entry point into one ESM file for node 20; paths relative to the repository root or
 * absolute (defaults: src/cli.ts into dist/cli.mjs). Resolves to the bundle's absolute path.
 */
export declare function build(options?: { entry?: string; outfile?: string; logLevel?: LogLevel }): Promise<string>;

/** One build step (see STEPS in scripts/build.mjs). */
export interface BuildStep {
  name: string;
  output: string;
  run(): Promise<string[]>;
}

/** The build steps of `npm run build` and `npm start`, in order. */
export declare const STEPS: BuildStep[];

/** Runs the steps that are out of date (every step with force), one phase line each. */
export declare function buildAll(options?: { force?: boolean; out?: { write(text: string): unknown } }): Promise<void>;
