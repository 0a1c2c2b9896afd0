// Calendar dates must not shift with the server's time zone: run this file west of UTC. The
// worker process runs other test files after this one (vitest.config.ts: isolate false): the
// previous zone is put back after the file.
const previousTz = process.env.TZ;
process.env.TZ = 'America/Los_Angeles';

import { and, eq, sql } from 'drizzle-orm';
import { afterAll, describe, expect, it } from 'vitest';
import { withTenant } from '../../src/db/client.js';
import { persons } from '../../src/db/schema/index.js';
import { setupTestApp } from '../helpers/app.js';
import { newTenant } from '../helpers/factories.js';

const ctx = setupTestApp();
afterAll(() => {
  if (previousTz === undefined) delete process.env.TZ;
  else process.env.TZ = previousTz;
});

describe('dates round-trip as YYYY-MM-DD', () => {
  it('the process really runs in Los Angeles time', () => {
    expect(new Date('2024-01-01T00:00:00Z').getTimezoneOffset()).toBe(480);
  });

  it('writes and reads dates of birth unchanged, through drizzle', async () => {
    const t = await newTenant(ctx);
    const dates = ['2024-02-29', '1999-12-31', '2000-01-01', '1970-01-01', '0001-01-01', '9999-12-31', '2024-03-10', '2024-11-03'];
    for (const dateOfBirth of dates) {
      const read = await withTenant(ctx.db, t.id, async (tx) => {
        await tx.update(persons).set({ dateOfBirth }).where(and(eq(persons.tenantId, t.id), eq(persons.contactId, t.admin.contactId)));
        const [row] = await tx.select({ d: persons.dateOfBirth }).from(persons).where(and(eq(persons.tenantId, t.id), eq(persons.contactId, t.admin.contactId)));
        return row.d;
      });
      expect(read).toBe(dateOfBirth);
      expect(typeof read).toBe('string');
    }
  });

  it('the database itself stores the same calendar date', async () => {
    const t = await newTenant(ctx);
    await withTenant(ctx.db, t.id, (tx) =>
      tx.update(persons).set({ dateOfBirth: '1985-06-15' }).where(and(eq(persons.tenantId, t.id), eq(persons.contactId, t.admin.contactId))),
    );
    const [row] = await withTenant(ctx.db, t.id, (tx) =>
      tx.select({ text: sql<string>`${persons.dateOfBirth}::text` }).from(persons).where(eq(persons.contactId, t.admin.contactId)),
    );
    expect(row.text).toBe('1985-06-15');
  });

  it('instants are Date objects (serialized as ISO UTC by the JSON serializer)', async () => {
    const t = await newTenant(ctx);
    const { tenants } = await import('../../src/db/schema/index.js');
    const [row] = await ctx.db.select({ createdAt: tenants.createdAt }).from(tenants).where(eq(tenants.id, t.id));
    expect(row.createdAt).toBeInstanceOf(Date);
    expect(Math.abs(row.createdAt.getTime() - Date.now())).toBeLessThan(60_000);
    expect(JSON.stringify(row.createdAt)).toMatch(/Z"$/);
  });
});
