import { eq } from 'drizzle-orm';
import { describe, expect, it } from 'vitest';
import { contacts } from '../../src/db/schema/index.js';
import { api, expectError, setupTestApp } from '../helpers/app.js';
import { newTenant, type TestTenant } from '../helpers/factories.js';

const ctx = setupTestApp();

const csv = (t: TestTenant, payload: string, contentType = 'text/csv') =>
  ctx.app.inject({ method: 'POST', url: '/api/crm/contacts/import', payload, headers: { authorization: `Bearer ${t.admin.token}`, 'content-type': contentType } });

describe('import: per-row errors', () => {
  it('reports invalid rows by number and still writes the valid ones', async () => {
    const t = await newTenant(ctx);
    const res = await api(ctx.app, t.admin.token).post('/api/crm/contacts/import', {
      contacts: [
        { firstName: 'Good', lastName: 'One', email: 'good@example.org' },
        { firstName: 'Bad', lastName: 'Email', email: 'not-an-email' },
        { lastName: 'NoFirst' },
        { firstName: 'NoLast', lastName: '   ' },
        { firstName: 'Bad', lastName: 'Gender', gender: 'Robot' },
        { firstName: 'Bad', lastName: 'Phone', phone: 'no digits' },
        { firstName: 'x'.repeat(201), lastName: 'Long' },
        {},
        { firstName: 'Good', lastName: 'Two', phone: '0700 000 002', gender: 'Male' },
      ],
    });
    expect(res.statusCode).toBe(200);
    const body = res.json();
    expect(body).toMatchObject({ total: 9, created: 2, updated: 0, failed: 7 });
    expect(body.errors.map((e: { row: number }) => e.row)).toEqual([2, 3, 4, 5, 6, 7, 8]);
    const message = (row: number) => body.errors.find((e: { row: number }) => e.row === row).message;
    expect(message(2)).toMatch(/^email /);
    expect(message(3)).toBe('firstName is required');
    expect(message(4)).toBe('lastName is required');
    expect(message(5)).toMatch(/^gender must be one of: Male, Female/);
    expect(message(6)).toMatch(/^phone /);
    expect(message(7)).toMatch(/^firstName /);
    expect(await ctx.db.$count(contacts, eq(contacts.tenantId, t.id))).toBe(3);
  });

  it('CSV rows get the same rules and row numbers (1 = first data row)', async () => {
    const t = await newTenant(ctx);
    const res = await csv(t, 'firstName,lastName,email,gender\nA,B,a@example.org,Male\nC,,c@example.org,\nE,F,bad,Female\n');
    expect(res.json()).toMatchObject({
      total: 3, created: 1, updated: 0, unchanged: 0, failed: 2,
      errors: [{ row: 2, message: 'lastName is required' }, { row: 3, message: expect.stringMatching(/^email /) }],
    });
  });
});

describe('import: whole-request errors', () => {
  it('400 for a missing or malformed body, rows that are not objects or strings, and malformed CSV', async () => {
    const t = await newTenant(ctx);
    const a = api(ctx.app, t.admin.token);
    expect(expectError(await a.post('/api/crm/contacts/import', {}), 400)).toMatch(/body\/contacts is required/);
    expect(expectError(await a.post('/api/crm/contacts/import', { contacts: 'x' }), 400)).toMatch(/body\/contacts/);
    expect(expectError(await a.post('/api/crm/contacts/import', { contacts: [{ firstName: { a: 1 }, lastName: 'B' }] }), 400)).toMatch(/body\/contacts\/0\/firstName/);
    expectError(await a.post('/api/crm/contacts/import', '{"contacts": [', { 'content-type': 'application/json' }), 400);
    expect(expectError(await csv(t, 'firstName,lastName\n"unclosed,B\n'), 400)).toMatch(/CSV could not be parsed/);
    expect(await ctx.db.$count(contacts, eq(contacts.tenantId, t.id))).toBe(1);
  });

  it('at most 10,000 rows (JSON and CSV), 413 beyond 10 MB, 415 for other content types', async () => {
    const t = await newTenant(ctx);
    const a = api(ctx.app, t.admin.token);
    const rows = Array.from({ length: 10_001 }, (_, i) => ({ firstName: 'A', lastName: `B${i}` }));
    expect(expectError(await a.post('/api/crm/contacts/import', { contacts: rows }), 400)).toMatch(/10000/);
    const text = `firstName,lastName\n${rows.map((r) => `${r.firstName},${r.lastName}`).join('\n')}\n`;
    expect(expectError(await csv(t, text), 400)).toMatch(/at most 10000 rows/);
    expectError(await csv(t, `firstName,lastName\n${'A,'.padEnd(1000, 'B')}\n`.repeat(10_600)), 413);
    expectError(await csv(t, 'firstName,lastName\nA,B\n', 'text/plain'), 415);
    expect(await ctx.db.$count(contacts, eq(contacts.tenantId, t.id))).toBe(1);
  });

  it('accepts a 1 MB+ import (the route allows 10 MB)', async () => {
    const t = await newTenant(ctx);
    const rows = Array.from({ length: 4_000 }, (_, i) => ({ firstName: 'A'.repeat(200), lastName: `B${i}`, email: `big${i}@example.org`, phone: `+1 555 ${100000 + i}` }));
    expect(JSON.stringify({ contacts: rows }).length).toBeGreaterThan(1024 * 1024);
    const res = await api(ctx.app, t.admin.token).post('/api/crm/contacts/import', { contacts: rows });
    expect(res.statusCode).toBe(200);
    expect(res.json()).toMatchObject({ total: 4_000, created: 4_000, failed: 0 });
  });
});
