import { Readable } from 'node:stream';
import { stringify } from 'csv-stringify';
import type { ReportColumn, Row } from './report.types.js';

/** A cell a spreadsheet would run as a formula (= + - @, or a leading tab/CR) gets a leading `'`. */
export function guardCell(value: string): string {
  return /^[=+\-@\t\r]/.test(value) ? `'${value}` : value;
}

const REF_TYPES = new Set(['group', 'contact', 'user', 'fund', 'ref']);

function refName(type: string, v: Record<string, unknown>): string {
  if (type === 'contact') return [v.firstName, v.lastName].filter(Boolean).join(' ');
  if (type === 'user') return String(v.username ?? '');
  return String(v.name ?? '');
}

/** The CSV header: a reference column becomes two, its id (`<label> id`) and its name. */
export function csvHeader(columns: ReportColumn[]): string[] {
  return columns.flatMap((c) => (REF_TYPES.has(c.type) ? [`${c.label} id`, c.label] : [c.label]));
}

/** One report row as CSV cells, in column order (the same values as the JSON row). */
export function csvCells(columns: ReportColumn[], row: Row): string[] {
  return columns.flatMap((c) => {
    const v = row[c.key];
    if (REF_TYPES.has(c.type)) {
      if (v === null || v === undefined) return ['', ''];
      const ref = v as Record<string, unknown>;
      return [String(ref.id ?? ''), guardCell(refName(c.type, ref))];
    }
    if (v === null || v === undefined) return [''];
    if (typeof v === 'number' || typeof v === 'boolean') return [String(v)];
    if (typeof v === 'object') return [guardCell(JSON.stringify(v))];
    return [guardCell(String(v))];
  });
}

/** RFC 4180 text (CRLF, a header row), streamed row by row through csv-stringify. */
export function reportCsvStream(columns: ReportColumn[], rows: Row[]): Readable {
  const source = Readable.from((function* () {
    yield csvHeader(columns).map(guardCell);
    for (const row of rows) yield csvCells(columns, row);
  })());
  return source.pipe(stringify({ record_delimiter: 'windows' }));
}
