/**
 * `tsx bench/profile-summary.ts <file.cpuprofile>`: self time of a V8 CPU profile (from
 * `npm run bench -- --cpu-prof`) by package and by function, to see where the service spends
 * its CPU compared with the raw ceiling.
 */
import fs from 'node:fs';

interface ProfileNode {
  id: number;
  callFrame: { functionName: string; url: string; lineNumber: number };
}
interface Profile {
  nodes: ProfileNode[];
  samples: number[];
  timeDeltas: number[];
}

function owner(url: string): string {
  const m = /node_modules\/((?:@[^/]+\/)?[^/]+)/.exec(url);
  if (m) return m[1];
  if (url.includes('/src/')) return 'src/' + (url.split('/src/')[1]?.split('/').slice(0, 2).join('/') ?? '');
  if (url.includes('/bench/')) return 'bench';
  if (url.startsWith('node:')) return url;
  return url ? 'other' : '(native/gc/idle)';
}

export function summarize(profile: Profile, top = 25): string {
  const byId = new Map(profile.nodes.map((n) => [n.id, n]));
  const self = new Map<number, number>();
  profile.samples.forEach((id, i) => self.set(id, (self.get(id) ?? 0) + (profile.timeDeltas[i] ?? 0)));
  const total = [...self.values()].reduce((a, b) => a + b, 0);
  const add = (map: Map<string, number>, key: string, us: number) => map.set(key, (map.get(key) ?? 0) + us);
  const packages = new Map<string, number>(), functions = new Map<string, number>();
  for (const [id, us] of self) {
    const f = byId.get(id)!.callFrame;
    add(packages, owner(f.url), us);
    add(functions, `${f.functionName || '(anonymous)'} ${f.url.split('/').slice(-2).join('/')}:${f.lineNumber + 1}`, us);
  }
  const table = (map: Map<string, number>) =>
    [...map.entries()].sort((a, b) => b[1] - a[1]).slice(0, top).map(([k, us]) => `${((100 * us) / total).toFixed(1).padStart(5)} %  ${k}`);
  return [`total ${(total / 1e6).toFixed(1)} s sampled`, '', 'by package:', ...table(packages), '', 'by function:', ...table(functions)].join('\n');
}

if (process.argv[1]?.endsWith('profile-summary.ts')) {
  const file = process.argv[2];
  if (!file) throw new Error('usage: tsx bench/profile-summary.ts <file.cpuprofile>');
  process.stdout.write(summarize(JSON.parse(fs.readFileSync(file, 'utf8'))) + '\n');
}
