#!/usr/bin/env node
/**
 * Builds the office console (console/, React + Vite) into dist/console, which the API serves at /
 * (src/plugins/console.ts). `npm start` runs it as the second step of scripts/build.mjs; it does nothing when the
 * console's sources, the typed client, the change types it lists (src/changes/types.ts) and the lockfile are unchanged since the last build (their
 * hash is kept in dist/console/.source-hash).
 *
 *   node scripts/build-console.mjs [--force]
 */
import crypto from 'node:crypto';
import fs from 'node:fs/promises';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const root = fileURLToPath(new URL('..', import.meta.url));
const outDir = path.join(root, 'dist/console');
const stamp = path.join(outDir, '.source-hash');
const SOURCES = ['console', 'client', 'src/changes/types.ts', 'package-lock.json'];

async function* files(entry) {
  const stat = await fs.stat(entry);
  if (!stat.isDirectory()) return yield entry;
  for (const name of (await fs.readdir(entry)).sort()) {
    if (name === 'node_modules' || name === 'dist' || name.startsWith('.')) continue;
    yield* files(path.join(entry, name));
  }
}

/** The console's source files, relative to the repository root (what scripts/build.mjs stamps). */
export async function sourceFiles() {
  const out = [];
  for (const source of SOURCES) for await (const file of files(path.join(root, source))) out.push(path.relative(root, file));
  return out;
}

/** A hash of every source file's path and content. */
export async function sourceHash() {
  const hash = crypto.createHash('sha256');
  for (const source of SOURCES) {
    for await (const file of files(path.join(root, source))) {
      hash.update(path.relative(root, file)).update('\0').update(await fs.readFile(file)).update('\0');
    }
  }
  return hash.digest('hex');
}

/** Builds the console unless it is up to date; answers whether it built. */
export async function buildConsole({ force = false, logLevel = 'warn' } = {}) {
  const hash = await sourceHash();
  const previous = await fs.readFile(stamp, 'utf8').catch(() => '');
  const built = await fs.stat(path.join(outDir, 'index.html')).then(() => true, () => false);
  if (!force && built && previous === hash) return false;
  // React's production build whatever NODE_ENV the caller runs with (tests run with NODE_ENV=test).
  process.env.NODE_ENV = 'production';
  const { build } = await import('vite');
  // Built beside, then swapped in: two test files building at once never see a half-emptied folder.
  const staging = `${outDir}.${process.pid}`;
  await build({ configFile: path.join(root, 'console/vite.config.ts'), mode: 'production', logLevel, build: { outDir: staging, emptyOutDir: true } });
  await fs.writeFile(path.join(staging, '.source-hash'), hash);
  const old = `${outDir}.old.${process.pid}`;
  await fs.rename(outDir, old).catch(() => undefined);
  await fs.rename(staging, outDir);
  await fs.rm(old, { recursive: true, force: true });
  return true;
}

if (process.argv[1] && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const started = Date.now();
  try {
    const built = await buildConsole({ force: process.argv.includes('--force') });
    console.log(built ? `console: built into dist/console in ${((Date.now() - started) / 1000).toFixed(1)} s` : 'console: up to date (dist/console)');
  } catch (err) {
    console.error('console: build failed:', err instanceof Error ? err.message : err);
    process.exit(1);
  }
}
