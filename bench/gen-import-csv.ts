/**
 * Writes a made-up people export for measuring `parish import contacts` (issue 18: 100,000 rows
 * on PostgreSQL in under 60 s with RSS under 300 MB), streamed so any size fits in memory:
 *
 *   npx tsx bench/gen-import-csv.ts --rows 100000 --format pco --out /tmp/people-100k.csv
 *
 * --format pco (default) writes Planning Center People's columns, parish the HTTP import's. Every
 * row is a new person (unique email and phone); one row in 1,000 lacks its last name, so the
 * errors file is exercised too. Not committed data: generate it where you measure.
 */
import fs from 'node:fs';
import { once } from 'node:events';
import { parseArgs } from 'node:util';

const { values } = parseArgs({
  options: { rows: { type: 'string', default: '100000' }, format: { type: 'string', default: 'pco' }, out: { type: 'string' }, seed: { type: 'string', default: String(Date.now()) } },
});
const rows = Number(values.rows);
if (!Number.isInteger(rows) || rows < 1 || !values.out || !['pco', 'parish'].includes(values.format!)) {
  console.error('usage: tsx bench/gen-import-csv.ts --rows N [--format pco|parish] --out FILE.csv');
  process.exit(2);
}

const FIRST = ['Grace', 'Peter', 'Ruth', 'Samuel', 'Esther', 'Joseph', 'Mary', 'Daniel', 'Sarah', 'Moses', 'Agnes', 'Isaac', 'Joy', 'David', 'Miriam', 'Paul'];
const LAST = ['Okello', 'Namutebi', 'Mugisha', 'Achieng', 'Kato', 'Nakato', 'Ssempala', 'Auma', 'Odongo', 'Banda', 'Mwangi', 'Otieno', 'Wanjiru', 'Kamau', 'Njoroge', 'Akello'];
const run = values.seed;

const header =
  values.format === 'pco'
    ? ['Person ID', 'First Name', 'Middle Name', 'Last Name', 'Gender', 'Home Email', 'Work Email', 'Mobile Phone Number', 'Home Phone Number', 'Household ID']
    : ['firstName', 'lastName', 'email', 'phone', 'gender'];

function row(i: number): string[] {
  const first = FIRST[i % FIRST.length];
  const last = i % 1_000 === 999 ? '' : `${LAST[(i * 7) % LAST.length]}${i % 97 === 0 ? '-Smith' : ''}`;
  const email = `${first}.${last || 'x'}.${run}.${i}@import.example.net`.toLowerCase();
  // Unique per generated file too: the import matches people by phone digits.
  const phone = `+256 7${String(Number(run) % 1_000).padStart(3, '0')} ${String(i).padStart(7, '0')}`;
  const gender = i % 2 ? 'M' : 'F';
  return values.format === 'pco'
    ? [String(100_000 + i), first, '', last, gender, email, '', phone, '', String(50_000 + Math.floor(i / 3))]
    : [first, last, email, phone, gender === 'M' ? 'Male' : 'Female'];
}

const quote = (v: string) => (/[",\n]/.test(v) ? `"${v.replace(/"/g, '""')}"` : v);
const out = fs.createWriteStream(values.out);
out.write(`${header.join(',')}\n`);
for (let i = 0; i < rows; i++) {
  if (!out.write(`${row(i).map(quote).join(',')}\n`)) await once(out, 'drain');
}
out.end();
await once(out, 'finish');
console.log(`wrote ${rows} rows (${values.format}) to ${values.out}`);
