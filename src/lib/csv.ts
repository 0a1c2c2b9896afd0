import { parse } from 'csv-parse/sync';
import { BadRequestError } from './errors.js';

/**
 * Parses a CSV import body (header row of column names) into records of trimmed strings; handles
 * quoted fields, a BOM and CRLF. Empty cells become absent so optional fields stay optional.
 */
export function parseCsvRecords(text: string, maxRows: number): Record<string, string>[] {
  return parseCsvTable(text, maxRows).records;
}

/** parseCsvRecords with the header row as written (an import recognises its format by it). */
export function parseCsvTable(text: string, maxRows: number): { header: string[]; records: Record<string, string>[] } {
  let rows: Record<string, string>[];
  let header: string[] = [];
  try {
    rows = parse(text, {
      columns: (names: string[]) => (header = names.map(String)),
      bom: true, skip_empty_lines: true, trim: true, relax_column_count: true, to: maxRows + 1,
    });
  } catch (err) {
    throw new BadRequestError(`CSV could not be parsed: ${(err as Error).message.split('\n')[0]}`);
  }
  if (rows.length > maxRows) throw new BadRequestError(`An import takes at most ${maxRows} rows`);
  const records = rows.map((row) => {
    const clean: Record<string, string> = {};
    for (const [key, value] of Object.entries(row)) {
      if (key === '__proto__' || value === '' || value === undefined) continue;
      if (value.includes('\u0000')) throw new BadRequestError('Strings must not contain NUL characters');
      clean[key] = value;
    }
    return clean;
  });
  return { header, records };
}
