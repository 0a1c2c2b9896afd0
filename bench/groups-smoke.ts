/**
 * Groups speed smoke (issue 5): a tenant with a 6-level tree of 5,000 groups and 60,000
 * memberships on PostgreSQL; prints p50/p95 through app.inject of
 *   - a Zone leader's visible-groups list        (target p50 < 15 ms)
 *   - the `ancestorId` subtree query               (target p50 < 10 ms)
 *   - moving a ~500-group subtree (PUT parentId)   (target p50 < 100 ms)
 *
 *   DATABASE_URL=postgres://postgres@127.0.0.1:5432/postgres npx tsx bench/groups-smoke.ts [--keep]
 *
 * Creates (and afterwards drops, unless --keep) its own database `parish_bench_groups`.
 */
import crypto from 'node:crypto';
import { eq, sql } from 'drizzle-orm';
import { buildApp } from '../src/app.js';
import { loadConfig } from '../src/config.js';
import { openDb, transaction, withTenant, type Db } from '../src/db/client.js';
import { migrate } from '../src/db/migrate.js';
import { groupCategories, groupMemberships } from '../src/db/schema/index.js';
import { insertPersonContact } from '../src/modules/contacts/contacts.repository.js';
import { createTenant, HIERARCHY_CATEGORIES } from '../src/provisioning/create-tenant.js';
import { findRoleIdsByName, insertUser } from '../src/modules/users/users.repository.js';
import { withDatabase } from '../src/db/admin.js';
import { smokeServer } from './smoke-server.js';

const BENCH_DB = 'parish_bench_groups';
/** Groups per level: Church, Network, Location, Zone, Cluster, Fellowship — 5,000 in all. */
const LEVELS = [1, 10, 20, 100, 500, 4369];
const CONTACTS = 12_000;
const MEMBERSHIPS = 60_000;

const { url: baseUrl, admin } = smokeServer();
const urlFor = (database: string) => withDatabase(baseUrl, database);

interface Seeded {
  tenantId: number;
  leaderUserId: number;
  adminUserId: number;
  zoneId: number;
  locationId: number;
  networkIds: number[];
  churchId: number;
}

/** Explicit ids 1..5000 (fresh database), rows sent as one JSON parameter per chunk. */
async function seedTree(tx: Db, tenantId: number) {
  const cats = await tx.select({ id: groupCategories.id, name: groupCategories.name }).from(groupCategories).where(eq(groupCategories.tenantId, tenantId));
  const rows: { id: number; name: string; category_id: number; parent_id: number | null; path: string; privacy: string }[] = [];
  const levels: { id: number; path: string }[][] = [];
  let next = 1;
  LEVELS.forEach((count, level) => {
    const categoryId = cats.find((c) => c.name === HIERARCHY_CATEGORIES[level].name)!.id;
    const parents = level === 0 ? [null] : levels[level - 1];
    const mine: { id: number; path: string }[] = [];
    for (let i = 0; i < count; i++) {
      const parent = parents[i % parents.length];
      const id = next++;
      const path = `${parent?.path ?? '/'}${id}/`;
      // From the Zone level down, every fifth group is Private.
      rows.push({ id, name: `${HIERARCHY_CATEGORIES[level].name} ${i + 1}`, category_id: categoryId, parent_id: parent?.id ?? null, path, privacy: level >= 3 && i % 5 === 0 ? 'Private' : 'Public' });
      mine.push({ id, path });
    }
    levels.push(mine);
  });
  for (let i = 0; i < rows.length; i += 1000) {
    await tx.execute(sql`
      insert into groups (tenant_id, id, name, category_id, parent_id, path, privacy)
      select ${tenantId}::bigint, r.id, r.name, r.category_id, r.parent_id, r.path, r.privacy
      from jsonb_to_recordset(${JSON.stringify(rows.slice(i, i + 1000))}::jsonb)
        as r(id bigint, name text, category_id bigint, parent_id bigint, path text, privacy text)`);
  }
  await tx.execute(sql`select setval(pg_get_serial_sequence('groups', 'id'), ${next}::bigint)`);
  return levels;
}

async function seedPeople(tx: Db, tenantId: number, groupCount: number) {
  const [{ max }] = (await tx.execute(sql`select coalesce(max(id), 0)::int as max from contacts`) as unknown as { rows: { max: number }[] }).rows;
  const first = Number(max) + 1;
  await tx.execute(sql`
    insert into contacts (tenant_id, id, category, sort_last, sort_first, search_text)
    select ${tenantId}::bigint, g, 'Person', 'last' || g, 'first' || g, '' from generate_series(${first}::bigint, ${first + CONTACTS - 1}::bigint) g`);
  await tx.execute(sql`
    insert into persons (tenant_id, contact_id, first_name, last_name)
    select ${tenantId}::bigint, g, 'First' || g, 'Last' || g from generate_series(${first}::bigint, ${first + CONTACTS - 1}::bigint) g`);
  await tx.execute(sql`select setval(pg_get_serial_sequence('contacts', 'id'), ${first + CONTACTS}::bigint)`);
  // Pairs (k mod CONTACTS, 7919k mod groups) are distinct for k < lcm(12000, 5000) = 60,000; the
  // first 5,000 cover every group once and are its Leader.
  await tx.execute(sql`
    insert into group_memberships (tenant_id, group_id, contact_id, role)
    select ${tenantId}::bigint, ((k * 7919) % ${groupCount}) + 1, ${first}::bigint + (k % ${CONTACTS}),
           case when k < ${groupCount} then 'Leader' else 'Member' end
    from generate_series(0, ${MEMBERSHIPS - 1}) k`);
}

async function seed(db: Db): Promise<Seeded> {
  const { tenant, admin: adminUser } = await createTenant(db, { slug: 'bench-groups', name: 'Bench Groups', adminUsername: 'admin', adminPassword: crypto.randomBytes(12).toString('hex') });
  const tenantId = tenant.id;
  // Bulk seeding runs as the connecting superuser (setval needs more than app_user may do).
  const levels = await transaction(db, (tx) => seedTree(tx, tenantId));
  await transaction(db, (tx) => seedPeople(tx, tenantId, LEVELS.reduce((a, b) => a + b, 0)));
  const zone = levels[3][1];
  const leaderUserId = await withTenant(db, tenantId, async (tx) => {
    const contactId = await insertPersonContact(tx, tenantId, { firstName: 'Zoe', lastName: 'Leader' });
    await tx.insert(groupMemberships).values({ tenantId, groupId: zone.id, contactId, role: 'Leader' });
    const roleIds = await findRoleIdsByName(tx, tenantId, ['Leader']);
    return (await insertUser(tx, tenantId, { username: 'zone-leader', passwordHash: null, contactId, roleIds })).id;
  });
  await db.execute(sql`analyze`);
  return {
    tenantId, leaderUserId, adminUserId: adminUser.id, zoneId: zone.id, locationId: levels[2][0].id,
    networkIds: levels[1].map((g) => g.id), churchId: levels[0][0].id,
  };
}

function percentile(sorted: number[], p: number) {
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))];
}

async function measure(label: string, runs: number, fn: (i: number) => Promise<void>, target: number) {
  for (let i = 0; i < 10; i++) await fn(i);
  const times: number[] = [];
  for (let i = 0; i < runs; i++) {
    const start = performance.now();
    await fn(i);
    times.push(performance.now() - start);
  }
  times.sort((a, b) => a - b);
  const p50 = percentile(times, 50);
  console.log(`${label.padEnd(48)} p50 ${p50.toFixed(2).padStart(7)} ms   p95 ${percentile(times, 95).toFixed(2).padStart(7)} ms   target < ${target} ms  ${p50 < target ? 'OK' : 'SLOW'}`);
}

async function main() {
  const keep = process.argv.includes('--keep');
  await admin(`DROP DATABASE IF EXISTS ${BENCH_DB} WITH (FORCE)`);
  await admin(`CREATE DATABASE ${BENCH_DB}`);
  const appDb = await openDb({ dataDir: '', databaseUrl: urlFor(BENCH_DB), poolSize: 5 });
  try {
    await migrate(appDb);
    const started = Date.now();
    const s = await seed(appDb.db);
    console.log(`seeded 5,000 groups, ${CONTACTS} contacts, ${MEMBERSHIPS + 1} memberships in ${Date.now() - started} ms`);
    const config = loadConfig({ NODE_ENV: 'test', JWT_SECRET: crypto.randomBytes(32).toString('hex'), PUBLIC_URL: 'http://localhost', DATA_DIR: '/nonexistent', LOG_LEVEL: 'silent' });
    const app = await buildApp({ config, db: appDb.db, logger: false });
    await app.ready();
    const token = (userId: number) => app.jwt.sign({ sub: String(userId), tid: s.tenantId, sid: crypto.randomUUID(), typ: 'access' });
    const leader = { authorization: `Bearer ${token(s.leaderUserId)}` };
    const adminAuth = { authorization: `Bearer ${token(s.adminUserId)}` };
    const get = async (url: string, headers: Record<string, string>) => {
      const res = await app.inject({ method: 'GET', url, headers });
      if (res.statusCode !== 200) throw new Error(`${url}: ${res.statusCode} ${res.body}`);
      return res.json();
    };

    const visible = await get('/api/groups', leader);
    const subtree = await get(`/api/groups?ancestorId=${s.locationId}`, adminAuth);
    const moving = s.networkIds[0];
    const moved = await get(`/api/groups?ancestorId=${moving}&limit=1`, adminAuth);
    console.log(`leader sees ${visible.total} groups; location subtree ${subtree.total}; moved subtree ${moved.total + 1} groups`);

    // The floor under the current machine load: an authenticated request with one tiny query.
    await measure('baseline (GET /api/groups/categories)', 200, async () => { await get('/api/groups/categories', leader); }, 15);
    await measure("leader's visible groups (GET /api/groups)", 200, async () => { await get('/api/groups', leader); }, 15);
    await measure('leader, page 50 (GET /api/groups?page=50)', 200, async () => { await get('/api/groups?page=50', leader); }, 15);
    await measure('subtree (GET /api/groups?ancestorId=location)', 200, async () => { await get(`/api/groups?ancestorId=${s.locationId}`, adminAuth); }, 10);
    await measure('leader subtree (ancestorId=led zone)', 200, async () => { await get(`/api/groups?ancestorId=${s.zoneId}`, leader); }, 10);
    await measure('(info) leader memberships list', 100, async () => { await get('/api/groups/membership', leader); }, 50);
    await measure('(info) leader reads its zone (children, members)', 100, async () => { await get(`/api/groups/${s.zoneId}`, leader); }, 50);
    await measure(`move a ${moved.total + 1}-group subtree (PUT parentId)`, 40, async (i) => {
      const parentId = i % 2 === 0 ? s.networkIds[1] : s.churchId;
      const res = await app.inject({ method: 'PUT', url: `/api/groups/${moving}`, headers: adminAuth, payload: { parentId } });
      if (res.statusCode !== 200) throw new Error(`move: ${res.statusCode} ${res.body}`);
    }, 100);
    await app.close();
  } finally {
    await appDb.close();
    if (!keep) await admin(`DROP DATABASE IF EXISTS ${BENCH_DB} WITH (FORCE)`);
  }
}

await main();
