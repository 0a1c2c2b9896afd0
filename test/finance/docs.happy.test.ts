import { expect, it } from 'vitest';
import { setupTestApp } from '../helpers/app.js';

const ctx = setupTestApp();

it('the OpenAPI document lists every finance path under the finance tag', async () => {
  const res = await ctx.app.inject({ method: 'GET', url: '/api/docs/json' });
  expect(res.statusCode).toBe(200);
  const paths = Object.keys(res.json().paths).filter((p) => p.startsWith('/api/finance'));
  for (const p of ['/api/finance/funds', '/api/finance/batches/{id}/close', '/api/finance/contributions/import', '/api/finance/contributions/export',
    '/api/finance/pledges/{id}', '/api/finance/statements/{contactId}', '/api/finance/statements/bulk', '/api/finance/summary', '/api/finance/my/statement']) {
    expect(paths).toContain(p);
  }
  expect(res.json().paths['/api/finance/contributions'].post.tags).toEqual(['finance']);
});
