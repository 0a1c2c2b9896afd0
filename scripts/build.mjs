#!/usr/bin/env node
/**
 * The build of `npm run build` and of every `npm start` (prestart): the steps of STEPS, in order,
 * each skipped when nothing it read last time has changed, so a restart with nothing changed pays
 * a few milliseconds of stat() calls here instead of a bundle. Each step prints one phase line
 * (`parish: building … 2.9 s`), as the server's start does (src/lib/phases.ts).
 *
 *   node scripts/build.mjs            # the steps that are out of date
 *   node scripts/build.mjs --force    # every step
 *   node scripts/build.mjs --outfile FILE   # only the server bundle, into FILE, unconditionally
 *
 * The server bundle: the CLI (src/cli.ts) bundled with esbuild into dist/cli.mjs, which `npm start`
 * runs on plain node: no TypeScript loader in the server process (tsx costs tens of MB of RSS and
 * some speed). The bench bundles its server process with the same function (bench/server-process.ts).
 *
 * Dependencies are bundled too, except those that must stay real packages in node_modules (EXTERNAL).
 * Our own sources that use `import.meta.url` (src/db/migrate.ts finds drizzle/ with it) get the URL of
 * their source file, not of the bundle, so paths relative to a source file resolve as under tsx.
 */
import fsSync from 'node:fs';
import fs from 'node:fs/promises';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';

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
export async function build(options = {}) {
  return (await bundle(options)).outfile;
}

/** As build(), and the files esbuild read (relative to the repository root). */
async function bundle({ entry = 'src/cli.ts', outfile = 'dist/cli.mjs', logLevel = 'warning' } = {}) {
  // Imported here: a build that is up to date never loads esbuild.
  const esbuild = await import('esbuild');
  const out = path.resolve(root, outfile);
  const result = await esbuild.build({
    absWorkingDir: root,
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
    metafile: true,
    logLevel,
  });
  return { outfile: out, inputs: Object.keys(result.metafile.inputs) };
}

/**
 * The build steps, in order. A step is skipped when its output exists and every file it read the
 * last time (as run() reported them) has the size and modification time recorded then
 * (dist/.build-stamps.json); this file and package-lock.json count as read by every step.
 *   name    what the phase line says it builds
 *   output  the file or folder it writes, relative to the repository root
 *   run()   builds; resolves to the files it read, relative to the repository root
 * A step that reads files no tool reports (a `vite build` of a front end) returns the files of its
 * source folder.
 * @type {{ name: string, output: string, run(): Promise<string[]> }[]}
 */
export const STEPS = [
  { name: 'the server bundle', output: 'dist/cli.mjs', run: async () => (await bundle()).inputs },
  {
    name: 'the console',
    output: 'dist/console/index.html',
    run: async () => {
      // Imported here: vite loads only when the console must be built.
      const { buildConsole, sourceFiles } = await import('./build-console.mjs');
      await buildConsole();
      return sourceFiles();
    },
  },
];

const STAMPS = path.join(root, 'dist', '.build-stamps.json');
const ALWAYS_READ = ['scripts/build.mjs', 'package-lock.json'];

/** Size and mtime of each file; a missing file is null (so its appearance counts as a change). */
function fingerprint(files) {
  return Object.fromEntries(files.map((file) => {
    try {
      const stat = fsSync.statSync(path.resolve(root, file));
      return [file, [stat.size, stat.mtimeMs]];
    } catch {
      return [file, null];
    }
  }));
}

function isCurrent(step, stamp) {
  if (!stamp || !fsSync.existsSync(path.resolve(root, step.output))) return false;
  const now = fingerprint(Object.keys(stamp));
  return Object.entries(stamp).every(([file, was]) => JSON.stringify(now[file]) === JSON.stringify(was));
}

/**
 * Runs the steps that are out of date (all with force), one phase line each on stdout.
 * @param {{ force?: boolean, out?: { write(text: string): unknown } }} [options]
 */
export async function buildAll({ force = false, out = process.stdout } = {}) {
  let stamps = {};
  try {
    stamps = JSON.parse(await fs.readFile(STAMPS, 'utf8'));
  } catch {
    // No stamps yet (a fresh clone, or dist/ removed): every step runs.
  }
  for (const step of STEPS) {
    out.write(`parish: building ${step.name} (${step.output}) … `);
    const started = performance.now();
    const seconds = () => `${((performance.now() - started) / 1000).toFixed(1)} s`;
    if (!force && isCurrent(step, stamps[step.name])) {
      out.write(`${seconds()} (up to date)\n`);
      continue;
    }
    try {
      const read = await step.run();
      stamps[step.name] = fingerprint([...new Set([...ALWAYS_READ, ...read])]);
    } catch (err) {
      out.write(`failed after ${seconds()}\n`);
      throw err;
    }
    out.write(`${seconds()}\n`);
    await fs.mkdir(path.dirname(STAMPS), { recursive: true });
    await fs.writeFile(STAMPS, JSON.stringify(stamps));
  }
}

if (process.argv[1] && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const { values } = parseArgs({ options: { outfile: { type: 'string' }, force: { type: 'boolean' } } });
  try {
    if (values.outfile) await build({ outfile: values.outfile });
    else await buildAll({ force: values.force });
  } catch (err) {
    // esbuild has already printed its errors; anything else is printed here.
    if (!err?.errors) console.error(err);
    process.exit(1);
  }
}
