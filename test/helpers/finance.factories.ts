import crypto from 'node:crypto';
import { expect } from 'vitest';
import { api, type TestContext } from './app.js';
import { newUser, type TestTenant, type TestUser } from './factories.js';

/** Finance test data through the API (as the given user, by default the tenant admin). */

export const TREASURER = ['finance:read', 'finance:write', 'contacts:read', 'reports:read'] as const;

export function newTreasurer(ctx: TestContext, t: TestTenant, extra: string[] = []): Promise<TestUser> {
  return newUser(ctx, t, [...TREASURER, ...extra] as never);
}

export async function newFund(ctx: TestContext, token: string, body: Record<string, unknown> = {}) {
  const res = await api(ctx.app, token).post('/api/finance/funds', { name: `Fund ${crypto.randomBytes(3).toString('hex')}`, ...body });
  expect(res.statusCode, res.body).toBe(201);
  return res.json() as { id: number; name: string; code: string | null; isActive: boolean; isTaxDeductible: boolean };
}

export async function newBatch(ctx: TestContext, token: string, body: Record<string, unknown> = {}) {
  const res = await api(ctx.app, token).post('/api/finance/batches', { name: `Batch ${crypto.randomBytes(3).toString('hex')}`, date: '2026-03-01', ...body });
  expect(res.statusCode, res.body).toBe(201);
  return res.json() as { id: number; name: string; status: string };
}

/** A single-fund gift unless `lines` is given. */
export async function newGift(ctx: TestContext, token: string, body: { fundId?: number; amount?: number; [k: string]: unknown }) {
  const { fundId, ...rest } = body;
  const amount = body.amount ?? 1000;
  const res = await api(ctx.app, token).post('/api/finance/contributions', {
    date: '2026-03-01', method: 'Cash', amount, lines: [{ fundId, amount }], ...rest,
  });
  expect(res.statusCode, res.body).toBe(201);
  return res.json();
}

/** The text drawn in an uncompressed pdfkit PDF: the hex strings of its TJ operators, decoded. */
export function pdfText(pdf: Buffer): string {
  const raw = pdf.toString('latin1');
  const out: string[] = [];
  for (const tj of raw.matchAll(/\[([^\]]*)\]\s*TJ/g)) {
    out.push([...tj[1].matchAll(/<([0-9a-fA-F]*)>/g)].map((m) => Buffer.from(m[1], 'hex').toString('latin1')).join(''));
  }
  return out.join('\n');
}
