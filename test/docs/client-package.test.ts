import { execFile } from 'node:child_process';
import { mkdtemp, readFile, readdir, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { setupTestApp } from '../helpers/app.js';
import { newTenant, PASSWORD, type TestTenant } from '../helpers/factories.js';

/**
 * Issue 31: `client/` is a package a separate front end installs. `npm pack` builds it; a scratch
 * project installs the tarball (openapi-fetch comes with it), and the package README's example,
 * exactly as written, is compiled against the installed types and run against a listening server.
 */
const run = promisify(execFile);
const root = path.resolve(import.meta.dirname, '../..');
const clientDir = path.join(root, 'client');
const ctx = setupTestApp();
let t: TestTenant;
let scratch: string;

beforeAll(async () => {
  t = await newTenant(ctx);
  scratch = await mkdtemp(path.join(os.tmpdir(), 'parish-client-'));
});
afterAll(async () => {
  await rm(scratch, { recursive: true, force: true });
});

describe('the client package', () => {
  it('has the API version, and installs, compiles and runs its README example against a listening server', async () => {
    const pkg = JSON.parse(await readFile(path.join(clientDir, 'package.json'), 'utf8'));
    const rootPkg = JSON.parse(await readFile(path.join(root, 'package.json'), 'utf8'));
    const api = JSON.parse(await readFile(path.join(root, 'openapi.json'), 'utf8'));
    expect(pkg.version).toBe(rootPkg.version);
    expect(pkg.version).toBe(api.info.version);
    expect(pkg.dependencies['openapi-fetch']).toBe(rootPkg.dependencies['openapi-fetch']);

    // npm pack runs prepack (tsc into dist/, the generated schema beside it).
    await run('npm', ['pack', '--pack-destination', scratch, '--silent'], { cwd: clientDir, timeout: 120_000 });
    const tarball = (await readdir(scratch)).find((f) => f.endsWith('.tgz'));
    expect(tarball).toBe(`parish-client-${pkg.version}.tgz`);

    await writeFile(path.join(scratch, 'package.json'), JSON.stringify({ name: 'scratch', private: true, type: 'module' }));
    await run('npm', ['install', '--prefer-offline', '--no-audit', '--no-fund', `./${tarball}`], { cwd: scratch, timeout: 180_000 });
    const installed = await readdir(path.join(scratch, 'node_modules/@parish/client/dist'));
    expect(installed).toEqual(expect.arrayContaining(['index.js', 'index.d.ts', 'schema.d.ts']));

    const readme = await readFile(path.join(clientDir, 'README.md'), 'utf8');
    const example = /```ts\n([\s\S]*?)```/.exec(readme)?.[1];
    expect(example).toContain("from '@parish/client'");
    await writeFile(path.join(scratch, 'example.ts'), example!);
    await writeFile(path.join(scratch, 'tsconfig.json'), JSON.stringify({
      compilerOptions: {
        target: 'ES2022', module: 'NodeNext', moduleResolution: 'NodeNext', strict: true, skipLibCheck: true, outDir: 'out',
        typeRoots: [path.join(root, 'node_modules/@types')], types: ['node'],
      },
      files: ['example.ts'],
    }));
    // Compiled with the project's TypeScript against the installed package's types: a wrong path or body fails here.
    await run(process.execPath, [path.join(root, 'node_modules/typescript/bin/tsc'), '-p', scratch], { cwd: scratch, timeout: 120_000 });

    await ctx.app.listen({ port: 0, host: '127.0.0.1' });
    const { port } = ctx.app.server.address() as { port: number };
    const { stdout } = await run(process.execPath, [path.join(scratch, 'out/example.js')], {
      cwd: scratch,
      timeout: 60_000,
      env: { ...process.env, PARISH_URL: `http://127.0.0.1:${port}`, PARISH_CHURCH: t.slug, PARISH_USERNAME: 'admin', PARISH_PASSWORD: PASSWORD },
    });
    expect(stdout.trim()).toMatch(/^created contact \d+; 1 contact\(s\) match "adams"$/);
  }, 300_000);
});
