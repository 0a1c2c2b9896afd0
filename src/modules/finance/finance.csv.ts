import { stringify, type Options } from 'csv-stringify';
import { stringify as stringifySync } from 'csv-stringify/sync';

/**
 * CSV out (RFC 4180: CRLF, quotes doubled, a header row). A text cell beginning with = + - @ (or a
 * tab or carriage return, which some spreadsheets skip before reading a formula) is prefixed with
 * an apostrophe, so that opening the file never runs a formula someone typed into a reference.
 */
export function guardFormula(value: string): string {
  return /^[=+\-@\t\r]/.test(value) ? `'${value}` : value;
}

const OPTIONS: Options = { header: true, record_delimiter: '\r\n', cast: { string: guardFormula, boolean: (b) => (b ? 'true' : 'false') } };

export function csvStream(columns: string[]) {
  return stringify({ ...OPTIONS, columns });
}

export function csvText(columns: string[], rows: Record<string, unknown>[]): string {
  return stringifySync(rows, { ...OPTIONS, columns });
}
