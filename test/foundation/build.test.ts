import { execFile } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { promisify } from 'node:util';
import { afterAll, describe, expect, it } from 'vitest';
import { build } from '../../scripts/build.mjs';

const root = path.resolve(import.meta.dirname, '../..');
// Inside the repository (dist/ is ignored): the bundle finds its external packages in node_modules from there.
fs.mkdirSync(path.join(root, 'dist'), { recursive: true });
const outDir = fs.mkdtempSync(path.join(root, 'dist', '.build-test-'));
afterAll(() => fs.rmSync(outDir, { recursive: true, force: true }));

describe('the npm start bundle (scripts/build.mjs)', { timeout: 60_000 }, () => {
  it('builds, loads on plain node, and resolves source-relative paths (drizzle/) from the bundle', async () => {
    const file = await build({ outfile: path.join(outDir, 'cli.mjs') });
    const bundle = fs.readFileSync(file, 'utf8');

    // Every `new URL(x, import.meta.url)` of our sources is anchored at its source file: it must still hit a real path.
    const anchored = [...bundle.matchAll(/new URL\("([^"]+)", new URL\("([^"]+)", import\.meta\.url\)\.href\)/g)];
    const resolved = anchored.map(([, rel, source]) => fileURLToPath(new URL(rel, new URL(source, pathToFileURL(file)))));
    expect(resolved).toContain(path.join(root, 'drizzle'));
    // dist/ holds what the build makes (the console); it need not exist when this test runs.
    for (const p of resolved.filter((r) => !r.startsWith(path.join(root, 'dist') + path.sep))) expect(fs.existsSync(p), p).toBe(true);
    expect(fs.existsSync(path.join(root, 'drizzle', 'meta', '_journal.json'))).toBe(true);

    // `help` evaluates the whole bundle (every module, the external packages included) and opens no database.
    const { stdout } = await promisify(execFile)(process.execPath, [file, 'help'], { cwd: outDir, env: { ...process.env, NODE_OPTIONS: '' } });
    expect(stdout).toContain('Usage: npm run parish');
  });
});
