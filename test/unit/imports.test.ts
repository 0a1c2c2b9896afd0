import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

/**
 * The import graph of src/ (architecture.md "Rules of the house"): no file reaches itself through the
 * imports that run (issue 31 found one circle of 13 files: tenants.service -> seeders -> the attendance,
 * finance and tasks seeds -> tenants.service), and nothing below the modules imports a module.
 * `import type` is left out: it is erased, so a circle of types alone decides no evaluation order.
 */
const SRC = fileURLToPath(new URL('../../src/', import.meta.url));
const BELOW_MODULES = ['lib', 'db', 'plugins', 'changes', 'jobs', 'tenancy'];

function sourceFiles(dir: string): string[] {
  return fs.readdirSync(dir, { withFileTypes: true }).flatMap((e) => {
    const p = path.join(dir, e.name);
    return e.isDirectory() ? sourceFiles(p) : p.endsWith('.ts') ? [p] : [];
  });
}

/** Every relative static import and re-export of each file (not `import type`), as absolute paths. */
function importGraph(): Map<string, string[]> {
  const graph = new Map<string, string[]>();
  const pattern = /^\s*(?:import|export)\s(?!type\s)[^'";]*?from\s+['"](\.[^'"]+)['"]|^\s*import\s+['"](\.[^'"]+)['"]/gm;
  for (const file of sourceFiles(SRC)) {
    const text = fs.readFileSync(file, 'utf8');
    const deps = [...text.matchAll(pattern)].map((m) => path.resolve(path.dirname(file), (m[1] ?? m[2]).replace(/\.js$/, '.ts')));
    graph.set(file, deps.filter((d) => fs.existsSync(d)));
  }
  return graph;
}

/** Strongly connected components of more than one file (Tarjan). */
function cycles(graph: Map<string, string[]>): string[][] {
  let counter = 0;
  const index = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const onStack = new Set<string>();
  const found: string[][] = [];
  const visit = (v: string) => {
    index.set(v, counter);
    low.set(v, counter++);
    stack.push(v);
    onStack.add(v);
    for (const w of graph.get(v) ?? []) {
      if (!index.has(w)) {
        visit(w);
        low.set(v, Math.min(low.get(v)!, low.get(w)!));
      } else if (onStack.has(w)) low.set(v, Math.min(low.get(v)!, index.get(w)!));
    }
    if (low.get(v) === index.get(v)) {
      const component: string[] = [];
      let w: string;
      do {
        w = stack.pop()!;
        onStack.delete(w);
        component.push(w);
      } while (w !== v);
      if (component.length > 1) found.push(component.sort());
    }
  };
  for (const v of graph.keys()) if (!index.has(v)) visit(v);
  return found;
}

describe('the import graph of src/', () => {
  const graph = importGraph();

  it('is read (the parser finds the imports it is about)', () => {
    expect(graph.size).toBeGreaterThan(200);
    expect(graph.get(path.join(SRC, 'app.ts'))).toContain(path.join(SRC, 'modules/index.ts'));
    expect(cycles(new Map([['a', ['b']], ['b', ['c']], ['c', ['a']], ['d', ['a']]]))).toEqual([['a', 'b', 'c']]);
  });

  it('has no cycle', () => {
    expect(cycles(graph).map((files) => files.map((f) => path.relative(SRC, f)))).toEqual([]);
  });

  it('has nothing below the modules importing a module', () => {
    const upward = [...graph].flatMap(([file, deps]) => {
      const layer = path.relative(SRC, file).split(path.sep)[0];
      if (!BELOW_MODULES.includes(layer)) return [];
      return deps.filter((d) => path.relative(SRC, d).startsWith(`modules${path.sep}`)).map((d) => `${path.relative(SRC, file)} -> ${path.relative(SRC, d)}`);
    });
    expect(upward).toEqual([]);
  });
});
