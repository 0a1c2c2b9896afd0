#!/usr/bin/env node
/**
 * Bundles the CLI (src/cli.ts) with esbuild into dist/cli.mjs, which `npm start` runs on plain
 * node: no TypeScript loader in the server process (tsx costs tens of MB of RSS and some speed).
 * The bench bundles its server process with the same function (bench/server-process.ts).
 *
 *   node scripts/build.mjs [--outfile FILE]
 *
 * Dependencies are bundled too, except those that must stay real packages in node_modules (EXTERNAL).
 * Our own sources that use `import.meta.url` (src/db/migrate.ts finds drizzle/ with it) get the URL of
 * their source file, not of the bundle, so paths relative to a source file resolve as under tsx.
 */
import fs from 'node:fs/promises';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import * as esbuild from 'esbuild';

const root = fileURLToPath(new URL('..', import.meta.url));

/** Packages (and their subpaths) left as imports: each would break inside a bundle. */
export const EXTERNAL = [
  // Loads its .wasm/.data files (and the pg_trgm extension bundle) relative to itself via import.meta.url.
  '@electric-sql/pglite',
  // A native addon: require()s a platform-specific .node binary.
  '@node-rs/argon2',
  // Serves its static/ folder (the Swagger UI's JS/CSS) and reads its logo relative to __dirname.
  '@fastify/swagger-ui',
  // Reads its own package.json relative to __dirname.
  '@fastify/swagger',
  // Fastify's logger: transports run in worker threads from files beside it.
  'pino',
  // pg's optional native binding (not installed; pg requires it only when asked to).
  'pg-native',
  // Reads its font metrics (js/data/*.afm) relative to its own directory.
  'pdfkit',
];

/**
 * The bundle is ESM, but bundled CommonJS dependencies require() node builtins and the external
 * packages: give them a real require.
 */
const BANNER = "import { createRequire as __createRequire } from 'node:module';\nconst require = __createRequire(import.meta.url);";

/** `import.meta.url` in our own files becomes their source file's URL, computed relative to the bundle. */
function sourceRelativeUrls(outfile) {
  return {
    name: 'source-relative-import-meta-url',
    setup(build) {
      build.onLoad({ filter: /\.[cm]?[jt]s$/ }, async (args) => {
        if (args.path.split(path.sep).includes('node_modules')) return undefined;
        const text = await fs.readFile(args.path, 'utf8');
        const unsupported = /\b(import\.meta\.(dirname|filename)|__dirname|__filename)\b/.exec(text);
        if (unsupported) {
          return { errors: [{ text: `${unsupported[0]} is not rewritten for the bundle; use new URL(..., import.meta.url) (scripts/build.mjs)` }] };
        }
        if (!text.includes('import.meta.url')) return undefined;
        const relative = path.relative(path.dirname(outfile), args.path).split(path.sep).join('/');
        const url = `new URL(${JSON.stringify(relative)}, import.meta.url).href`;
        return { contents: text.replace(/\bimport\.meta\.url\b/g, url), loader: /\.[cm]?ts$/.test(args.path) ? 'ts' : 'js' };
      });
    },
  };
}

/**
 * Bundles one entry point into one ESM file for node 20.
 * @param {{ entry?: string, outfile?: string, logLevel?: import('esbuild').LogLevel }} [options]
 *   paths relative to the repository root or absolute; defaults: src/cli.ts into dist/cli.mjs.
 * @returns {Promise<string>} the absolute path of the written bundle
 */
export async function build({ entry = 'src/cli.ts', outfile = 'dist/cli.mjs', logLevel = 'warning' } = {}) {
  const out = path.resolve(root, outfile);
  await esbuild.build({
    entryPoints: [path.resolve(root, entry)],
    outfile: out,
    bundle: true,
    platform: 'node',
    format: 'esm',
    target: 'node20',
    external: EXTERNAL,
    banner: { js: BANNER },
    plugins: [sourceRelativeUrls(out)],
    sourcemap: 'linked',
    logLevel,
  });
  return out;
}

if (process.argv[1] && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const { values } = parseArgs({ options: { outfile: { type: 'string' } } });
  try {
    await build({ outfile: values.outfile });
  } catch {
    // esbuild has already printed the errors.
    process.exit(1);
  }
}
