import { sql } from 'drizzle-orm';
import { beforeAll, describe, expect, it } from 'vitest';
import { rowsOf } from '../../src/modules/finance/finance.common.js';
import { api, setupTestApp } from '../helpers/app.js';
import { newTenant, type TestTenant, type TestUser } from '../helpers/factories.js';
import { newBatch, newFund, newGift, newTreasurer } from '../helpers/finance.factories.js';

/**
 * Closing a batch races with every write that touches its contributions (issue 29): each round fires
 * the close together with an update, a delete, a move out (`batchId: null`), a refund, a move in and
 * a create into the batch, then checks that what the close counted is what the batch holds, and that
 * no contribution of the batch changed after its close.
 */

const ctx = setupTestApp();
const ROUNDS = 50;

describe('closing a batch versus writes to its contributions', () => {
  let t: TestTenant;
  let tr: TestUser;
  let fund: { id: number };
  beforeAll(async () => {
    t = await newTenant(ctx);
    tr = await newTreasurer(ctx, t);
    fund = await newFund(ctx, tr.token);
  });

  async function invariant(batchId: number, giftIds: number[]) {
    const [batch] = rowsOf<{ status: string; total: string; n: string }>(await ctx.db.execute(sql`
      select b.status, coalesce((select sum(amount) from contributions c where c.tenant_id = b.tenant_id and c.batch_id = b.id), 0)::text as total,
        (select count(*) from contributions c where c.tenant_id = b.tenant_id and c.batch_id = b.id)::text as n
      from batches b where b.tenant_id = ${t.id} and b.id = ${batchId}`));
    const closes = rowsOf<{ id: string; data: { totalAmount: number; contributionCount: number } }>(await ctx.db.execute(sql`
      select id::text, data from changes where tenant_id = ${t.id} and type = 'batch.closed' and entity_id = ${batchId}`));
    if (batch.status !== 'Closed') {
      expect(closes).toEqual([]);
      return 'open';
    }
    expect(closes).toHaveLength(1);
    expect({ total: Number(batch.total), n: Number(batch.n) }).toEqual({ total: closes[0].data.totalAmount, n: closes[0].data.contributionCount });
    const late = rowsOf<{ type: string; entity_id: string }>(await ctx.db.execute(sql`
      select type, entity_id::text from changes where tenant_id = ${t.id} and type like 'contribution.%' and id > ${closes[0].id}::bigint
        and (entity_id = any(${`{${giftIds.join(',')}}`}::bigint[]) or data->>'batchId' = ${String(batchId)})`));
    expect(late).toEqual([]);
    return 'closed';
  }

  it(`keeps a closed batch's totals equal to its contributions over ${ROUNDS} rounds`, async () => {
    const http = api(ctx.app, tr.token);
    const outcomes = { open: 0, closed: 0, writesDone: 0, writesRefused: 0 };
    for (let round = 0; round < ROUNDS; round++) {
      const b = await newBatch(ctx, tr.token, { controlAmount: 4000, controlCount: 4 });
      const other = await newBatch(ctx, tr.token);
      const gifts: { id: number }[] = [];
      for (let i = 0; i < 4; i++) gifts.push(await newGift(ctx, tr.token, { fundId: fund.id, amount: 1000, batchId: b.id }));
      const incoming = await newGift(ctx, tr.token, { fundId: fund.id, amount: 700, batchId: other.id });
      const writes = [
        () => http.put(`/api/finance/contributions/${gifts[0].id}`, { amount: 1500, lines: [{ fundId: fund.id, amount: 1500 }] }),
        () => http.delete(`/api/finance/contributions/${gifts[1].id}`),
        () => http.put(`/api/finance/contributions/${gifts[2].id}`, { batchId: null }),
        () => http.post(`/api/finance/contributions/${gifts[3].id}/refund`, { amount: 400 }),
        () => http.put(`/api/finance/contributions/${incoming.id}`, { batchId: b.id }),
        () => http.post('/api/finance/contributions', { date: '2026-03-01', method: 'Cash', amount: 300, batchId: b.id, lines: [{ fundId: fund.id, amount: 300 }] }),
      ];
      // The close goes in at a different place each round.
      const requests = [...writes];
      requests.splice(round % (writes.length + 1), 0, () => http.put(`/api/finance/batches/${b.id}/close`, { force: true }));
      const responses = await Promise.all(requests.map((r) => r()));
      for (const res of responses) expect([200, 201, 204, 409], res.body).toContain(res.statusCode);
      const created = responses.find((r) => r.statusCode === 201);
      const ids = [...gifts.map((g) => g.id), incoming.id, ...(created ? [created.json().id] : [])];
      outcomes[await invariant(b.id, ids)]++;
      for (const res of responses) {
        if (res.statusCode === 409) outcomes.writesRefused++;
        else outcomes.writesDone++;
      }
    }
    // Every round closed (force), and the writes went both ways: some before the close, some refused after.
    expect(outcomes.closed).toBe(ROUNDS);
    expect(outcomes.writesDone).toBeGreaterThan(ROUNDS);
    expect(outcomes.writesRefused).toBeGreaterThan(0);
  }, 240_000);

  it('refuses a refund in a closed batch (409) and allows it again after a reopen', async () => {
    const admin = await newTreasurer(ctx, t, ['finance:admin']);
    const b = await newBatch(ctx, tr.token, { controlAmount: 1000, controlCount: 1 });
    const gift = await newGift(ctx, tr.token, { fundId: fund.id, amount: 1000, batchId: b.id });
    const http = api(ctx.app, tr.token);
    expect((await http.put(`/api/finance/batches/${b.id}/close`, {})).statusCode).toBe(200);
    const refused = await http.post(`/api/finance/contributions/${gift.id}/refund`, { amount: 100 });
    expect(refused.statusCode, refused.body).toBe(409);
    expect(refused.json().message).toContain('closed batch');
    expect((await api(ctx.app, admin.token).post(`/api/finance/contributions/${gift.id}/refund`, { amount: 100 })).statusCode).toBe(409);
    expect((await api(ctx.app, admin.token).put(`/api/finance/batches/${b.id}/reopen`)).statusCode).toBe(200);
    expect((await http.post(`/api/finance/contributions/${gift.id}/refund`, { amount: 100 })).json()).toMatchObject({ status: 'PartiallyRefunded', refundedAmount: 100 });
  });
});
