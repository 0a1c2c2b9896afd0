/**
 * `npx tsx bench/growth.ts SMALLER.json LARGER.json [--out FILE]`: the growth table of two runs of
 * `npm run bench` (the `.json` each run writes beside its report), scenario by scenario: p50 and
 * req/s of the service, req/s of the raw ceiling, the ratio service/raw, each from the smaller data
 * set to the larger. See bench/README.md.
 */
import fs from 'node:fs';
import { parseArgs } from 'node:util';
import type { RunSettings } from './measure.js';

export interface GrowthFigures {
  date: string;
  size: string;
  database: string;
  settings: RunSettings;
  loadAverage?: { start: number[]; end: number[] };
  scenarios: { id: string; title: string; skipped?: string; rps?: number; p50?: number; p99?: number; rawRps?: number; rawP50?: number }[];
}

const fixed = (n: number | undefined, digits = 0) => (n === undefined ? '—' : n.toFixed(digits));
const times = (a: number | undefined, b: number | undefined) => (a && b ? `${(b / a).toFixed(2)}×` : '—');

export function renderGrowth(from: GrowthFigures, to: GrowthFigures): string {
  const load = (f: GrowthFigures) => (f.loadAverage ? `load ${f.loadAverage.start[0].toFixed(1)} → ${f.loadAverage.end[0].toFixed(1)}` : 'load not recorded');
  const lines = [
    `# Growth from ${from.size} to ${to.size}`,
    '',
    `- ${from.size}: ${from.date}, ${from.database}, ${load(from)}; ${to.size}: ${to.date}, ${to.database}, ${load(to)}.`,
    `- Settings: ${from.settings.connections} connection(s), ${from.settings.duration} s × ${from.settings.reps} after a ${from.settings.warmup} s warm-up` +
      (JSON.stringify(from.settings) === JSON.stringify(to.settings) ? ' (the same for both).' : `; ${to.size}: ${JSON.stringify(to.settings)}.`),
    `- Growth = p50 at ${to.size} ÷ p50 at ${from.size} (p50s are whole milliseconds, so sub-5 ms figures are coarse); raw growth = raw req/s at ${from.size} ÷ at ${to.size}, how the SQL itself grows.`,
    '',
    `| # | Scenario | p50 ms ${from.size} → ${to.size} | growth | req/s ${from.size} → ${to.size} | raw req/s ${from.size} → ${to.size} | raw growth | ratio ${from.size} → ${to.size} |`,
    '|---|---|---:|---:|---:|---:|---:|---:|',
  ];
  for (const a of from.scenarios) {
    const b = to.scenarios.find((s) => s.id === a.id);
    if (!b) continue;
    if (a.skipped || b.skipped) {
      lines.push(`| ${a.id} | ${a.title} | skipped: ${(a.skipped ?? b.skipped)!.replace(/\|/g, '/').slice(0, 100)} | | | | | |`);
      continue;
    }
    const ratio = (s: typeof a) => (s.rps && s.rawRps ? (s.rps / s.rawRps).toFixed(2) : '—');
    lines.push(
      `| ${a.id} | ${a.title} | ${fixed(a.p50, 1)} → ${fixed(b.p50, 1)} | ${times(a.p50, b.p50)} | ${fixed(a.rps)} → ${fixed(b.rps)} | ${fixed(a.rawRps)} → ${fixed(b.rawRps)} | ${times(b.rawRps, a.rawRps)} | ${ratio(a)} → ${ratio(b)} |`,
    );
  }
  return lines.join('\n') + '\n';
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const { values, positionals } = parseArgs({ allowPositionals: true, options: { out: { type: 'string' } } });
  if (positionals.length !== 2) throw new Error('usage: npx tsx bench/growth.ts SMALLER.json LARGER.json [--out FILE]');
  const [from, to] = positionals.map((f) => JSON.parse(fs.readFileSync(f, 'utf8')) as GrowthFigures);
  const text = renderGrowth(from, to);
  if (values.out) fs.writeFileSync(values.out, text);
  else process.stdout.write(text);
}
