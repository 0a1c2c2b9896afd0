/** A small RFC 4180 reader and writer for the import wizard (the server parses the file again; this only maps and splits it). */

/** The records of a CSV text: quoted fields with commas, quotes ("") and line breaks; CRLF or LF. */
export function parseCsv(text: string): string[][] {
  const rows: string[][] = [];
  let row: string[] = [];
  let field = '';
  let quoted = false;
  const src = text.replace(/^\uFEFF/, '');
  for (let i = 0; i < src.length; i++) {
    const c = src[i];
    if (quoted) {
      if (c === '"' && src[i + 1] === '"') { field += '"'; i++; }
      else if (c === '"') quoted = false;
      else field += c;
    } else if (c === '"') quoted = true;
    else if (c === ',') { row.push(field); field = ''; }
    else if (c === '\n' || c === '\r') {
      if (c === '\r' && src[i + 1] === '\n') i++;
      row.push(field);
      rows.push(row);
      row = [];
      field = '';
    } else field += c;
  }
  if (field !== '' || row.length > 0) { row.push(field); rows.push(row); }
  return rows.filter((r) => r.some((v) => v.trim() !== ''));
}

const quote = (v: string) => (/[",\r\n]/.test(v) ? `"${v.replace(/"/g, '""')}"` : v);

/** A CSV text of a header and records. */
export function toCsv(header: string[], records: string[][]): string {
  return [header, ...records].map((r) => r.map(quote).join(',')).join('\r\n') + '\r\n';
}

/** Headers compare as the server compares them: letters and digits, any case. */
export const headerKey = (header: string) => header.toLowerCase().replace(/[^a-z0-9]/g, '');
