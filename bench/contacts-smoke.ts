/**
 * Contacts speed smoke test (issue 4): seeds a 50,000-contact tenant and 20 small tenants into a
 * fresh PostgreSQL database, then prints p50/p95 of the list page, `q` search (name fragment and
 * phone digits), the single read with every nested array, and a 1,000-row import, all measured
 * through app.inject on a real app. Also prints the plans of the list and search queries.
 *
 *   DATABASE_URL=postgres://postgres@127.0.0.1:5432/postgres npx tsx bench/contacts-smoke.ts
 */
import crypto from 'node:crypto';
import { faker } from '@faker-js/faker';
import { sql } from 'drizzle-orm';
import { buildApp } from '../src/app.js';
import { loadConfig } from '../src/config.js';
import { openDb, type Db } from '../src/db/client.js';
import { migrate } from '../src/db/migrate.js';
import {
  contactAddresses, contactEmails, contactOccasions, contactPhones, contactRelationships, contactRequests, contacts, persons, companies,
} from '../src/db/schema/index.js';
import { refreshSearchColumns } from '../src/modules/contacts/contacts.repository.js';
import { createTenant } from '../src/provisioning/create-tenant.js';
import { withDatabase } from '../src/db/admin.js';
import { smokeServer } from './smoke-server.js';

const BIG = Number(process.env.BENCH_CONTACTS ?? 50_000);
const SMALL_TENANTS = 20;
const SMALL = 300;
const DB_NAME = 'parish_bench_contacts';
const CHUNK = 2_000;

const { url, admin } = smokeServer();

faker.seed(42);

/** Multi-row inserts of `n` people (10% companies) straight into the tables, then the one search refresh. */
async function seedContacts(db: Db, tenantId: number, n: number) {
  for (let start = 0; start < n; start += CHUNK) {
    const size = Math.min(CHUNK, n - start);
    const result = (await db.execute(sql`SELECT nextval(pg_get_serial_sequence('contacts', 'id')) AS id FROM generate_series(1, ${size}::int)`)) as unknown as {
      rows: { id: string }[];
    };
    const ids = result.rows.map((r) => Number(r.id));
    const isCompany = (i: number) => (start + i) % 10 === 9;
    await db.insert(contacts).values(ids.map((id, i) => ({ tenantId, id, category: isCompany(i) ? ('Company' as const) : ('Person' as const) })));
    const people = ids.filter((_, i) => !isCompany(i));
    const firms = ids.filter((_, i) => isCompany(i));
    await db.insert(persons).values(
      people.map((id) => ({
        tenantId, contactId: id, firstName: faker.person.firstName(), lastName: faker.person.lastName(),
        gender: faker.helpers.arrayElement(['Male', 'Female']),
      })),
    );
    await db.insert(companies).values(firms.map((id) => ({ tenantId, contactId: id, name: faker.company.name() })));
    await db.insert(contactEmails).values(ids.map((id) => ({ tenantId, contactId: id, value: `c${id}.${faker.internet.email()}`.toLowerCase(), isPrimary: true })));
    await db.insert(contactPhones).values(
      ids.map((id) => {
        const value = faker.phone.number({ style: 'international' });
        return { tenantId, contactId: id, value, digits: value.replace(/\D/g, ''), isPrimary: true };
      }),
    );
    await refreshSearchColumns(db, tenantId, ids);
  }
}

/** A contact with every nested array filled, for the single read. */
async function seedRichContact(db: Db, tenantId: number): Promise<number> {
  const rows = (await db.execute(sql`SELECT id FROM contacts WHERE tenant_id = ${tenantId} AND category = 'Person' ORDER BY id LIMIT 6`)) as unknown as {
    rows: { id: string }[];
  };
  const [id, ...others] = rows.rows.map((r) => Number(r.id));
  await db.insert(contactEmails).values([1, 2].map((i) => ({ tenantId, contactId: id, value: `extra${i}@example.org`, position: i })));
  await db.insert(contactAddresses).values([0, 1].map((i) => ({ tenantId, contactId: id, street: `${i} Main St`, city: 'Kampala', country: 'UG', isPrimary: i === 0, position: i })));
  await db.insert(contactOccasions).values([{ tenantId, contactId: id, type: 'Birthday', date: '1990-02-03' }, { tenantId, contactId: id, type: 'Baptism', date: '2005-06-07' }]);
  for (const other of others.slice(0, 4)) {
    await db.insert(contactRelationships).values([
      { tenantId, contactId: id, relatedContactId: other, type: 'Friend' },
      { tenantId, contactId: other, relatedContactId: id, type: 'Friend' },
    ]);
  }
  await db.insert(contactRequests).values([1, 2, 3].map((i) => ({ tenantId, contactId: id, type: 'Prayer', description: `Request ${i}` })));
  await refreshSearchColumns(db, tenantId, [id]);
  return id;
}

function percentile(sorted: number[], p: number) {
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))];
}

async function measure(name: string, iterations: number, fn: (i: number) => Promise<void>) {
  for (let i = 0; i < Math.min(10, iterations); i++) await fn(i); // warm-up
  const times: number[] = [];
  for (let i = 0; i < iterations; i++) {
    const start = performance.now();
    await fn(i);
    times.push(performance.now() - start);
  }
  times.sort((a, b) => a - b);
  console.log(`${name.padEnd(38)} p50 ${percentile(times, 50).toFixed(2).padStart(8)} ms   p95 ${percentile(times, 95).toFixed(2).padStart(8)} ms   (n=${iterations})`);
}

async function main() {
  await admin(`DROP DATABASE IF EXISTS ${DB_NAME} WITH (FORCE)`);
  await admin(`CREATE DATABASE ${DB_NAME}`);
  const appDb = await openDb({ dataDir: '', databaseUrl: withDatabase(url, DB_NAME), poolSize: 10 });
  try {
    await migrate(appDb);
    const db = appDb.db;
    const t0 = performance.now();
    const big = await createTenant(db, { slug: 'bench-big', name: 'Big Church', adminUsername: 'admin', adminPassword: 'bench-password' });
    await seedContacts(db, big.tenant.id, BIG);
    for (let i = 0; i < SMALL_TENANTS; i++) {
      const small = await createTenant(db, { slug: `bench-small-${i}`, name: `Small ${i}`, adminUsername: 'admin', adminPassword: 'bench-password' });
      await seedContacts(db, small.tenant.id, SMALL);
    }
    const richId = await seedRichContact(db, big.tenant.id);
    await db.execute(sql`VACUUM ANALYZE`);
    console.log(`seeded ${BIG} + ${SMALL_TENANTS}×${SMALL} contacts in ${((performance.now() - t0) / 1000).toFixed(1)} s`);

    const config = { ...loadConfig({ NODE_ENV: 'test', JWT_SECRET: crypto.randomBytes(32).toString('hex'), DATABASE_URL: url }), logLevel: 'silent' };
    const app = await buildApp({ config, db, logger: false });
    await app.ready();
    const token = app.jwt.sign({ sub: String(big.admin.id), tid: big.tenant.id, sid: crypto.randomUUID(), typ: 'access' });
    const get = async (path: string) => {
      const res = await app.inject({ method: 'GET', url: path, headers: { authorization: `Bearer ${token}` } });
      if (res.statusCode !== 200) throw new Error(`${path}: ${res.statusCode} ${res.body}`);
      return res.json();
    };

    const sample = (await db.execute(sql`SELECT p.last_name, ph.digits FROM persons p JOIN contact_phones ph ON ph.tenant_id = p.tenant_id AND ph.contact_id = p.contact_id
      WHERE p.tenant_id = ${big.tenant.id} ORDER BY random() LIMIT 200`)) as unknown as { rows: { last_name: string; digits: string }[] };
    const fragments = sample.rows.map((r) => r.last_name.slice(1, 5).toLowerCase());
    const digitRuns = sample.rows.map((r) => r.digits.slice(-7, -1));
    const pages = Math.floor(BIG / 20);

    await measure('baseline: GET relationships?contactId', 300, async () => void (await get(`/api/crm/relationships?contactId=${richId}`)));
    await measure('list page (20, pages 1-10)', 300, async (i) => void (await get(`/api/crm/contacts?page=${1 + (i % 10)}`)));
    await measure('list page (20, random deep page)', 100, async (i) => void (await get(`/api/crm/contacts?page=${1 + ((i * 7919) % pages)}`)));
    await measure('list page 1 of /people', 300, async () => void (await get('/api/crm/people')));
    await measure('q search: name fragment (4 chars)', 300, async (i) => void (await get(`/api/crm/contacts?q=${encodeURIComponent(fragments[i % fragments.length])}`)));
    await measure('q search: phone digits (6)', 300, async (i) => void (await get(`/api/crm/contacts?q=${digitRuns[i % digitRuns.length]}`)));
    await measure('single read (all nested arrays)', 500, async () => void (await get(`/api/crm/contacts/${richId}`)));
    await measure('import 1,000 rows (half matching)', 8, async (i) => {
      const rows = Array.from({ length: 1000 }, (_, k) =>
        k % 2 === 0
          ? { firstName: faker.person.firstName(), lastName: faker.person.lastName(), email: `imp${i}.${k}@example.org`, phone: `+1 555 ${String(i * 1000 + k).padStart(7, '0')}` }
          : { firstName: 'Matched', lastName: `Row${k}`, email: `c${richId + k}.x@nowhere.org`, phone: `+256 ${sample.rows[k % sample.rows.length].digits}` },
      );
      const res = await app.inject({ method: 'POST', url: '/api/crm/contacts/import', payload: { contacts: rows }, headers: { authorization: `Bearer ${token}` } });
      if (res.statusCode !== 200) throw new Error(`import: ${res.statusCode} ${res.body}`);
    });

    await explain(db, big.tenant.id, fragments[0], digitRuns[0]);
    await app.close();
  } finally {
    await appDb.close();
    if (!process.env.BENCH_KEEP) await admin(`DROP DATABASE IF EXISTS ${DB_NAME} WITH (FORCE)`);
  }
}

/** The plans of the list and search queries as the app runs them (as app_user, under RLS). */
async function explain(db: Db, tenantId: number, fragment: string, digits: string) {
  const queries: [string, string][] = [
    ['list page', `SELECT c.id FROM contacts c WHERE c.tenant_id = ${tenantId} ORDER BY c.sort_last, c.sort_first, c.id LIMIT 20 OFFSET 20000`],
    ['list count', `SELECT count(*) FROM contacts c WHERE c.tenant_id = ${tenantId}`],
    ['list count (status filter)', `SELECT count(*) FROM contacts c WHERE c.tenant_id = ${tenantId} AND c.status = 'Deceased'`],
    ['q name', `SELECT * FROM contact_search_page('%${fragment}%', NULL, false, NULL, NULL, 20, 0)`],
    ['q phone', `SELECT * FROM contact_search_page('%${digits}%', '%${digits}%', false, NULL, NULL, 20, 0)`],
    ['single read', `SELECT c.id FROM contacts c WHERE c.tenant_id = ${tenantId} AND c.id = 1`],
  ];
  for (const [name, query] of queries) {
    const plan = await db.transaction(async (tx) => {
      const role = name.includes('as owner') ? sql`` : sql`, set_config('role', 'app_user', true)`;
      await tx.execute(sql`select set_config('app.tenant_id', ${String(tenantId)}, true)${role}`);
      return (await tx.execute(sql.raw(`EXPLAIN (ANALYZE, COSTS OFF, TIMING OFF, SUMMARY ON) ${query}`))) as unknown as { rows: { 'QUERY PLAN': string }[] };
    });
    console.log(`\n-- ${name}\n${plan.rows.map((r) => r['QUERY PLAN']).join('\n')}`);
  }
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
