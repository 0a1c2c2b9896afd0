import { sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { setupTestApp } from '../helpers/app.js';
import { newTenant, type TestTenant } from '../helpers/factories.js';
import { newSession } from '../helpers/attendance.factories.js';
import { newGroup } from '../helpers/groups.factories.js';

/**
 * Match-or-create under concurrency (issue 29): 20 parallel quick-guest posts of one returning guest
 * made 3 (another run 10) contacts. Real parallel HTTP requests against a listening server (on
 * PostgreSQL each on its own pooled connection): one contact, by email and by phone digits, and the
 * same for concurrent contacts imports (JSON and CSV) and guests of the same people.
 */
const ctx = setupTestApp();
let base = '';
let t: TestTenant;

beforeAll(async () => {
  base = await ctx.app.listen({ port: 0, host: '127.0.0.1' });
  t = await newTenant(ctx);
});
afterAll(async () => {
  await ctx.app.close();
});

function post(path: string, body: unknown, contentType = 'application/json') {
  return fetch(`${base}${path}`, {
    method: 'POST',
    headers: { authorization: `Bearer ${t.admin.token}`, 'content-type': contentType },
    body: typeof body === 'string' ? body : JSON.stringify(body),
  });
}

async function count(query: ReturnType<typeof sql>): Promise<number> {
  const res = await ctx.db.execute(query);
  return Number((res as unknown as { rows: { n: string }[] }).rows[0].n);
}

const byEmail = (email: string) => count(sql`select count(distinct contact_id) as n from contact_emails where tenant_id = ${t.id} and lower(value) = ${email.toLowerCase()}`);
const byDigits = (digits: string) => count(sql`select count(distinct contact_id) as n from contact_phones where tenant_id = ${t.id} and digits = ${digits}`);

describe('concurrent match-or-create', () => {
  it('20 parallel guest posts with the same email make one contact, recorded once', async () => {
    const g = await newGroup(ctx, t, { name: 'Guests by email' });
    const s = await newSession(ctx, t, { groupId: g.id }, '2026-05-03');
    const responses = await Promise.all(Array.from({ length: 20 }, (_, i) =>
      post(`/api/attendance/sessions/${s.id}/guests`, { firstName: 'Ruth', lastName: 'Parallel', email: i % 2 ? 'Ruth.Parallel@example.org' : 'ruth.parallel@EXAMPLE.org' })));
    const bodies = await Promise.all(responses.map(async (r) => ({ status: r.status, body: await r.json() })));
    expect(bodies.map((b) => b.status)).toEqual(Array(20).fill(201));
    const ids = new Set(bodies.map((b) => b.body.contact.id));
    expect(ids.size).toBe(1);
    expect(bodies.filter((b) => b.body.contact.isNew)).toHaveLength(1);
    expect(await byEmail('ruth.parallel@example.org')).toBe(1);
    expect(await count(sql`select count(*) as n from attendance_records where tenant_id = ${t.id} and session_id = ${s.id}`)).toBe(1);
  });

  it('20 parallel guest posts with the same phone digits (written differently) make one contact', async () => {
    const g = await newGroup(ctx, t, { name: 'Guests by phone' });
    const s = await newSession(ctx, t, { groupId: g.id }, '2026-05-03');
    const forms = ['+256 700 555 101', '256700555101', '(256) 700-555-101', '256.700.555.101'];
    const responses = await Promise.all(Array.from({ length: 20 }, (_, i) =>
      post(`/api/attendance/sessions/${s.id}/guests`, { firstName: 'Amos', lastName: 'Phone', phone: forms[i % forms.length] })));
    const bodies = await Promise.all(responses.map(async (r) => ({ status: r.status, body: await r.json() })));
    expect(bodies.map((b) => b.status)).toEqual(Array(20).fill(201));
    expect(new Set(bodies.map((b) => b.body.contact.id)).size).toBe(1);
    expect(await byDigits('256700555101')).toBe(1);
  });

  it('parallel contacts imports (JSON and CSV) and guests of the same people make each person once', async () => {
    const g = await newGroup(ctx, t, { name: 'Imported guests' });
    const s = await newSession(ctx, t, { groupId: g.id }, '2026-05-10');
    const people = [
      { firstName: 'Esther', lastName: 'Import', email: 'esther.import@example.org', phone: '+256 772 000 001' },
      { firstName: 'Joseph', lastName: 'Import', email: 'joseph.import@example.org', phone: '+256 772 000 002' },
      { firstName: 'Lydia', lastName: 'Import', email: 'lydia.import@example.org', phone: '+256 772 000 003' },
    ];
    const csv = ['firstName,lastName,email,phone', ...people.map((p) => `${p.firstName},${p.lastName},${p.email.toUpperCase()},${p.phone.replace(/ /g, '-')}`)].join('\n');
    const requests = [
      ...Array.from({ length: 6 }, () => post('/api/crm/contacts/import', { contacts: people })),
      ...Array.from({ length: 6 }, () => post('/api/crm/contacts/import', csv, 'text/csv')),
      ...Array.from({ length: 8 }, (_, i) => post(`/api/attendance/sessions/${s.id}/guests`, { ...people[i % 3], phone: undefined })),
    ];
    const statuses = await Promise.all(requests.map(async (r) => (await r).status));
    expect(statuses.slice(0, 12)).toEqual(Array(12).fill(200));
    expect(statuses.slice(12)).toEqual(Array(8).fill(201));
    for (const p of people) {
      expect(await byEmail(p.email), p.email).toBe(1);
      expect(await byDigits(p.phone.replace(/\D/g, '')), p.phone).toBe(1);
    }
    expect(await count(sql`select count(*) as n from persons where tenant_id = ${t.id} and last_name = 'Import'`)).toBe(3);
  });
});
