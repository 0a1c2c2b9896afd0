import { parse } from 'csv-parse/sync';
import { describe, expect, it, vi } from 'vitest';
import { parseCsvRecords } from '../../src/lib/csv.js';
import { BadRequestError } from '../../src/lib/errors.js';

/**
 * parseCsvRecords (every CSV import: giving, contacts, groups) reads well-formed files itself and
 * leaves the rest to csv-parse: whatever the text, its records or its error are csv-parse's, as
 * before (compared here with the csv-parse call it made, over generated texts full of quotes,
 * blanks, line endings, BOMs and odd white space), and the common files take the fast path.
 */
// csv-parse itself, its calls counted (the fast path makes none).
vi.mock('csv-parse/sync', async (original) => {
  const real = await original<typeof import('csv-parse/sync')>();
  return { ...real, parse: vi.fn(real.parse) };
});
const csvParseCalls = () => vi.mocked(parse).mock.calls.length;

function before(text: string, maxRows: number): Record<string, string>[] {
  let rows: Record<string, string>[];
  try {
    rows = parse(text, { columns: true, bom: true, skip_empty_lines: true, trim: true, relax_column_count: true, to: maxRows + 1 });
  } catch (err) {
    throw new BadRequestError(`CSV could not be parsed: ${(err as Error).message.split('\n')[0]}`);
  }
  if (rows.length > maxRows) throw new BadRequestError(`An import takes at most ${maxRows} rows`);
  return rows.map((row) => {
    const clean: Record<string, string> = {};
    for (const [key, value] of Object.entries(row)) {
      if (key === '__proto__' || value === '' || value === undefined) continue;
      if (value.includes('\u0000')) throw new BadRequestError('Strings must not contain NUL characters');
      clean[key] = value;
    }
    return clean;
  });
}

const outcome = (f: () => unknown) => {
  try {
    return { ok: JSON.stringify(f(), (_k, v) => (v && typeof v === 'object' && !Array.isArray(v) ? Object.entries(v) : v)) };
  } catch (err) {
    return { error: `${(err as Error).constructor.name}: ${(err as Error).message}` };
  }
};

/** A deterministic generator (mulberry32). */
function random(seed: number) {
  let a = seed;
  return () => {
    a = (a + 0x6d2b79f5) | 0;
    let t = Math.imul(a ^ (a >>> 15), 1 | a);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const PIECES = ['a', 'b', 'name', '2026-01-01', '150', ' ', '  ', '\t', '"', '""', ',', ',', ',', '\n', '\n', '\r\n', '\r', '\f', '\u00a0', '\u2003',
  '\uFEFF', 'é', '✓', '😀', '\uD800', '\uDC00', '\u0000', '__proto__', 'x y', '"q"', '" q "', '"a,b"', '"line\nbreak"', '"say ""hi"""', '\\', '{', '}'];

describe('parseCsvRecords', () => {
  it('gives the records or the error csv-parse gave, for any text', () => {
    const rand = random(14);
    let fast = 0;
    for (let i = 0; i < 8_000; i++) {
      const tidy = rand() < 0.5;
      const pieces = tidy ? ['a', 'b', ' ', ',', '"a b"', '"x,""y"""', '\n', '\n', 'é', '\u00a0'] : PIECES;
      const crlf = rand() < 0.3;
      let text = rand() < 0.1 ? '\uFEFF' : '';
      const length = Math.floor(rand() * 40);
      for (let k = 0; k < length; k++) {
        const piece = pieces[Math.floor(rand() * pieces.length)];
        text += crlf && piece === '\n' ? '\r\n' : piece;
      }
      const maxRows = 1 + Math.floor(rand() * 6);
      const was = outcome(() => before(text, maxRows));
      const calls = csvParseCalls();
      const now = outcome(() => parseCsvRecords(text, maxRows));
      expect(now, JSON.stringify(text)).toEqual(was);
      if (csvParseCalls() === calls) fast++;
    }
    expect(fast).toBeGreaterThan(1_000);
  });

  it('reads the usual files (quoted cells, CRLF, a BOM, blank lines) as csv-parse does', () => {
    const files = [
      'date,amount,fund,email,name,reference\r\n2026-04-01,1500,Tithe,emma@example.org,,"R,1"\r\n2026-04-02,abc,Tithe,,,\r\n2026-04-03,250,TTH,,Nora Name,\r\n',
      '\uFEFFfirstName,lastName, Email \n  Ann , "Lee, Jr." ,ann@example.org\n\n   \nBob,"Multi\nline ""quoted""",\nCarl\nDee,Ek,dee@example.org,extra,cells\n',
      'a,b\n1,2',
      'name\n"x"  \n',
    ];
    for (const text of files) {
      const expected = before(text, 100);
      const calls = csvParseCalls();
      expect(parseCsvRecords(text, 100)).toEqual(expected);
      expect(csvParseCalls(), JSON.stringify(text)).toBe(calls);
    }
    expect(parseCsvRecords(files[1], 100)).toEqual([
      { firstName: 'Ann', lastName: 'Lee, Jr.', Email: 'ann@example.org' },
      { firstName: 'Bob', lastName: 'Multi\nline "quoted"' },
      { firstName: 'Carl' },
      { firstName: 'Dee', lastName: 'Ek', Email: 'dee@example.org' },
    ]);
    // A column named twice: csv-parse's answer (the later cell wins, even when empty).
    expect(parseCsvRecords('a,a,b\n1,,3\n', 100)).toEqual([{ b: '3' }]);
    expect(() => parseCsvRecords('a\n1\n2\n3\n', 2)).toThrow('An import takes at most 2 rows');
    expect(() => parseCsvRecords('a,b\n"unclosed,1\n', 10)).toThrow(/CSV could not be parsed: Quote Not Closed/);
    expect(() => parseCsvRecords('a,b\nx"y,1\n', 10)).toThrow(/CSV could not be parsed: Invalid Opening Quote/);
  });
});
