/**
 * Writes a made-up import file for measuring the imports, streamed so any size fits in memory.
 *
 * People (issue 18: `parish import contacts`, 100,000 rows on PostgreSQL in under 60 s with RSS
 * under 300 MB):
 *
 *   npx tsx bench/gen-import-csv.ts --rows 100000 --format pco --out /tmp/people-100k.csv
 *
 * --format pco (default) writes Planning Center People's columns, parish the HTTP import's. Every
 * row is a new person (unique email and phone); one row in 1,000 lacks its last name, so the
 * errors file is exercised too.
 *
 * Giving (issue 14: importing 10,000 giving rows in < 3 s), a bank / mobile-money statement of the
 * bench tenant's donors:
 *
 *   DATABASE_URL=postgres://postgres@127.0.0.1:5432/parish_bench npx tsx bench/gen-import-csv.ts \
 *     --format giving --tenant SLUG --rows 10000 --out /tmp/giving-10k.csv
 *
 * Columns date,amount,fund,method,phone,name,reference (amounts in minor units, December of the
 * bench's giving year), payers drawn from the tenant's people (read from DATABASE_URL; --tenant
 * defaults to the bench manifest's): half paid by mobile money and carry the donor's phone (digits
 * or as stored) and an upper-case account name, three in ten are bank transfers carrying only the
 * donor's full name (case and spacing varied), two in ten are payers no contact has (a new phone
 * and name: kept as unmatched anonymous gifts). A phone or name several contacts share matches
 * nobody, as in real exports. bench/giving-import.ts builds the same rows in memory.
 *
 * Not committed data: generate it where you measure.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { once } from 'node:events';
import { pathToFileURL } from 'node:url';
import { parseArgs } from 'node:util';
import pg from 'pg';

const FIRST = ['Grace', 'Peter', 'Ruth', 'Samuel', 'Esther', 'Joseph', 'Mary', 'Daniel', 'Sarah', 'Moses', 'Agnes', 'Isaac', 'Joy', 'David', 'Miriam', 'Paul'];
const LAST = ['Okello', 'Namutebi', 'Mugisha', 'Achieng', 'Kato', 'Nakato', 'Ssempala', 'Auma', 'Odongo', 'Banda', 'Mwangi', 'Otieno', 'Wanjiru', 'Kamau', 'Njoroge', 'Akello'];

const quote = (v: string) => (/[",\n]/.test(v) ? `"${v.replace(/"/g, '""')}"` : v);

// ---- giving

/** A payer a giving row can name: one of the tenant's people. */
export interface GivingDonor {
  name: string;
  phone: string | null;
}

export const GIVING_HEADER = ['date', 'amount', 'fund', 'method', 'phone', 'name', 'reference'] as const;

/** The people of a tenant (id order: the bench's first 60% are its regular givers), with their first phone. */
export async function loadGivingDonors(databaseUrl: string, slug: string, limit = 35_000): Promise<GivingDonor[]> {
  const client = new pg.Client({ connectionString: databaseUrl });
  await client.connect();
  try {
    const { rows } = await client.query<{ name: string; phone: string | null }>(
      `select p.first_name || ' ' || p.last_name as name,
         (select ph.value from contact_phones ph where ph.tenant_id = k.tenant_id and ph.contact_id = k.id order by ph.position limit 1) as phone
       from tenants t join contacts k on k.tenant_id = t.id join persons p on p.tenant_id = k.tenant_id and p.contact_id = k.id
       where t.slug = $1 order by k.id limit $2`,
      [slug, limit],
    );
    if (rows.length === 0) throw new Error(`tenant ${slug} has no people`);
    return rows;
  } finally {
    await client.end();
  }
}

/** A seeded generator of numbers in [0, 1) (mulberry32). */
function random(seed: string): () => number {
  let a = [...seed].reduce((h, ch) => Math.imul(h ^ ch.charCodeAt(0), 16777619) >>> 0, 2166136261);
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/**
 * `rows` giving rows (GIVING_HEADER's columns) paid by `donors` or by strangers: 50% by phone,
 * 30% by full name, 20% matching nobody. `run` makes the references (and the strangers) unique.
 */
export function givingRows(rows: number, donors: readonly GivingDonor[], run: string): string[][] {
  const rand = random(run);
  const pick = <T>(xs: readonly T[]) => xs[Math.floor(rand() * xs.length)];
  const withPhone = donors.filter((d) => d.phone);
  const out: string[][] = [];
  for (let i = 0; i < rows; i++) {
    const date = `2025-12-${String(1 + Math.floor(rand() * 28)).padStart(2, '0')}`;
    const amount = String(500 + 100 * Math.floor(rand() * 495));
    const f = rand();
    const fund = f < 0.7 ? 'General' : f < 0.9 ? 'Building' : 'Missions';
    const kind = rand();
    let method: string, phone: string, name: string;
    if (kind < 0.5 && withPhone.length) {
      const d = pick(withPhone);
      method = 'MobileMoney';
      phone = rand() < 0.5 ? d.phone!.replace(/\D/g, '') : d.phone!;
      name = d.name.toUpperCase();
    } else if (kind < 0.8) {
      const d = pick(donors);
      method = 'BankTransfer';
      phone = '';
      name = rand() < 0.3 ? d.name.toLowerCase() : rand() < 0.1 ? ` ${d.name.replace(' ', '  ')} ` : d.name;
    } else {
      method = rand() < 0.5 ? 'MobileMoney' : 'BankTransfer';
      phone = method === 'MobileMoney' ? `+256 79${String(Math.floor(rand() * 1e7)).padStart(7, '0')}` : '';
      name = `${pick(FIRST)} ${pick(LAST)}-${run.slice(-4)}${i}`;
    }
    out.push([date, amount, fund, method, phone, name, `${method === 'MobileMoney' ? 'MM' : 'BT'}-${run}-${i + 1}`]);
  }
  return out;
}

export const csvText = (header: readonly string[], rows: readonly string[][]): string =>
  `${header.join(',')}\n${rows.map((r) => r.map(quote).join(',')).join('\n')}\n`;

/** The bench manifest of a bench database (bench/database.ts), or null. */
export function benchManifest(databaseUrl: string): { slug: string; adminUsername: string; password: string } | null {
  const file = path.join(os.tmpdir(), `parish-bench-pg-${new URL(databaseUrl).pathname.slice(1)}-large.json`);
  return fs.existsSync(file) ? JSON.parse(fs.readFileSync(file, 'utf8')) : null;
}

// ---- people

async function main() {
  const { values } = parseArgs({
    options: {
      rows: { type: 'string', default: '100000' }, format: { type: 'string', default: 'pco' }, out: { type: 'string' },
      seed: { type: 'string', default: String(Date.now()) }, tenant: { type: 'string' },
    },
  });
  const rows = Number(values.rows);
  if (!Number.isInteger(rows) || rows < 1 || !values.out || !['pco', 'parish', 'giving'].includes(values.format!)) {
    console.error('usage: tsx bench/gen-import-csv.ts --rows N [--format pco|parish|giving] [--tenant SLUG] --out FILE.csv');
    process.exit(2);
  }
  const run = values.seed!;

  if (values.format === 'giving') {
    const databaseUrl = process.env.DATABASE_URL;
    const slug = values.tenant ?? (databaseUrl ? benchManifest(databaseUrl)?.slug : undefined);
    if (!databaseUrl || !slug) {
      console.error('--format giving reads the donors from DATABASE_URL: set it, and --tenant SLUG unless the database has a bench manifest');
      process.exit(2);
    }
    const donors = await loadGivingDonors(databaseUrl, slug);
    fs.writeFileSync(values.out, csvText(GIVING_HEADER, givingRows(rows, donors, run)));
    console.log(`wrote ${rows} giving rows of ${slug}'s donors to ${values.out}`);
    return;
  }

  const header =
    values.format === 'pco'
      ? ['Person ID', 'First Name', 'Middle Name', 'Last Name', 'Gender', 'Home Email', 'Work Email', 'Mobile Phone Number', 'Home Phone Number', 'Household ID']
      : ['firstName', 'lastName', 'email', 'phone', 'gender'];

  const row = (i: number): string[] => {
    const first = FIRST[i % FIRST.length];
    const last = i % 1_000 === 999 ? '' : `${LAST[(i * 7) % LAST.length]}${i % 97 === 0 ? '-Smith' : ''}`;
    const email = `${first}.${last || 'x'}.${run}.${i}@import.example.net`.toLowerCase();
    // Unique per generated file too: the import matches people by phone digits.
    const phone = `+256 7${String(Number(run) % 1_000).padStart(3, '0')} ${String(i).padStart(7, '0')}`;
    const gender = i % 2 ? 'M' : 'F';
    return values.format === 'pco'
      ? [String(100_000 + i), first, '', last, gender, email, '', phone, '', String(50_000 + Math.floor(i / 3))]
      : [first, last, email, phone, gender === 'M' ? 'Male' : 'Female'];
  };

  const out = fs.createWriteStream(values.out);
  out.write(`${header.join(',')}\n`);
  for (let i = 0; i < rows; i++) {
    if (!out.write(`${row(i).map(quote).join(',')}\n`)) await once(out, 'drain');
  }
  out.end();
  await once(out, 'finish');
  console.log(`wrote ${rows} rows (${values.format}) to ${values.out}`);
}

if (process.argv[1] && import.meta.url === pathToFileURL(path.resolve(process.argv[1])).href) await main();
