import { beforeAll, describe, expect, it } from 'vitest';
import { recordChanges, type NewChange } from '../../src/changes/recorder.js';
import { withTenant } from '../../src/db/client.js';
import { api, expectError, setupTestApp } from '../helpers/app.js';
import { newTenant, newUser, type TestTenant, type TestUser } from '../helpers/factories.js';
import { newGroup, type TestGroup } from '../helpers/groups.factories.js';

/** GET /api/audit (modules-contract §7). */
describe('GET /api/audit', () => {
  const ctx = setupTestApp();
  let t: TestTenant;
  let b: TestTenant;
  let auditor: TestUser;
  let treasurer: TestUser;
  let editor: TestUser;
  let group: TestGroup;
  let contactId: number;
  let contributionChange: number;
  const record = (tenantId: number, userId: number | null, items: NewChange[]) => withTenant(ctx.db, tenantId, (tx) => recordChanges(tx, { tenantId, userId }, items));

  beforeAll(async () => {
    t = await newTenant(ctx);
    b = await newTenant(ctx);
    // What the audit shows follows the reader's module permissions (src/changes/readable.ts).
    auditor = await newUser(ctx, t, ['audit:read', 'contacts:read', 'groups:read', 'attendance:read']);
    treasurer = await newUser(ctx, t, ['audit:read', 'finance:read']);
    editor = await newUser(ctx, t, ['contacts:read', 'contacts:write']);
    group = await newGroup(ctx, t, { name: 'Riverside Fellowship' });
    const created = await api(ctx.app, editor.token).post('/api/crm/contacts', { category: 'Person', person: { firstName: 'Audit', lastName: 'Me' } });
    contactId = created.json().id;
    await api(ctx.app, editor.token).put(`/api/crm/contacts/${contactId}`, { status: 'Inactive' });
    await api(ctx.app, t.admin.token).post('/api/groups/membership', { groupId: group.id, contactId });
    [contributionChange] = await record(t.id, t.admin.id, [{
      type: 'contribution.created', entityId: 42,
      changes: { amount: { from: null, to: 12550 }, fundId: { from: null, to: 3 } },
      data: { contactId, amount: 12550, feeAmount: 300, fundName: 'Building', lines: [{ fundId: 3, amount: 12550 }] },
    }]);
    await record(t.id, null, [{ type: 'attendance.absent', entityId: 7, data: { contactId, groupId: group.id } }]);
    // An amount in a change the auditor may read (a module that keeps one in its data).
    await record(t.id, null, [{ type: 'contact.merged', entityId: contactId, data: { contactId, movedAmount: 4200, sourceIds: [99] } }]);
    await record(b.id, b.admin.id, [{ type: 'contact.created', entityId: contactId, data: { contactId } }]);
  });

  const audit = (query: string, user: { token: string } = auditor) => api(ctx.app, user.token).get(`/api/audit${query}`);

  it('lists changes newest first with actor, entity, changes and data', async () => {
    const res = await audit('?limit=100');
    expect(res.statusCode).toBe(200);
    const body = res.json();
    expect(body).toMatchObject({ page: 1, limit: 100 });
    const items = body.data as { id: number; occurredAt: string }[];
    expect(body.total).toBe(items.length);
    for (let i = 1; i < items.length; i++) {
      const [newer, older] = [items[i - 1], items[i]];
      expect(newer.occurredAt > older.occurredAt || (newer.occurredAt === older.occurredAt && newer.id > older.id)).toBe(true);
    }
    const updated = body.data.find((c: { type: string }) => c.type === 'contact.updated');
    expect(updated).toEqual({
      id: expect.any(Number), type: 'contact.updated', occurredAt: expect.stringMatching(/^\d{4}-\d{2}-\d{2}T.*Z$/),
      actor: { id: editor.id, username: editor.username }, entity: { type: 'contact', id: contactId },
      changes: { status: { from: 'Active', to: 'Inactive' } }, data: expect.objectContaining({ contactId }),
    });
    // The worker's system actor is null.
    expect(body.data.find((c: { type: string }) => c.type === 'attendance.absent').actor).toBeNull();
    expect((await audit('?limit=100', t.admin)).json().data.map((c: { id: number }) => c.id)).toContain(contributionChange);
  });

  it('filters by entity, actor, type and time window; pages', async () => {
    const entity = (await audit(`?entityType=contact&entityId=${contactId}`)).json();
    expect(entity.data.map((c: { type: string }) => c.type)).toEqual(['contact.merged', 'contact.status_changed', 'contact.updated', 'contact.created']);
    expect(entity.total).toBe(4);
    const byActor = (await audit(`?actorUserId=${editor.id}`)).json();
    expect(byActor.total).toBe(3);
    expect(byActor.data.every((c: { actor: { id: number } }) => c.actor.id === editor.id)).toBe(true);
    const byType = (await audit('?type=membership.created')).json();
    expect(byType.data).toHaveLength(1);
    expect(byType.data[0]).toMatchObject({ entity: { type: 'membership' }, data: { contactId, groupId: group.id, role: 'Member' } });
    const combined = (await audit(`?entityType=contact&actorUserId=${t.admin.id}`)).json();
    expect(combined.total).toBe(0);

    const paged = (await audit(`?entityType=contact&entityId=${contactId}&limit=3&page=2`)).json();
    expect(paged).toMatchObject({ total: 4, page: 2, limit: 3 });
    expect(paged.data.map((c: { type: string }) => c.type)).toEqual(['contact.created']);
    expect((await audit(`?entityType=contact&entityId=${contactId}&page=9`)).json()).toMatchObject({ data: [], total: 4 });

    // Dates are whole days in the tenant's zone (UTC here); instants are exact.
    const today = new Date().toISOString().slice(0, 10);
    const everything = (await audit('')).json().total;
    expect(everything).toBeGreaterThan(5);
    expect((await audit(`?from=${today}&to=${today}`)).json().total).toBe(everything);
    expect((await audit('?to=2000-01-01')).json().total).toBe(0);
    expect((await audit('?from=2999-01-01')).json().total).toBe(0);
    const latest = (await audit('?limit=1')).json().data[0];
    const since = (await audit(`?from=${encodeURIComponent(latest.occurredAt)}`)).json();
    expect(since.data.map((c: { id: number }) => c.id)).toContain(latest.id);
    expect((await audit(`?to=${encodeURIComponent(new Date(Date.parse(latest.occurredAt) - 3_600_000).toISOString())}`)).json().total).toBe(0);
  });

  it('validates its query', async () => {
    expectError(await audit('?type=contact.exploded'), 400);
    expectError(await audit('?entityId=abc'), 400);
    expectError(await audit('?from=yesterday'), 400);
    expectError(await audit('?to=2026-13-40'), 400);
  });

  it('giving only for callers holding finance:read: no giving change without it, and no amount in any other change', async () => {
    expect((await audit('?type=contribution.created')).json()).toMatchObject({ data: [], total: 0 });
    expect(JSON.stringify((await audit('?limit=100')).json())).not.toContain('12550');
    const merged = (await audit('?type=contact.merged')).json().data[0];
    expect(merged.data).toEqual({ contactId, sourceIds: [99] });
    expect((await audit('?type=contact.merged', t.admin)).json().data[0].data).toEqual({ contactId, movedAmount: 4200, sourceIds: [99] });
    const full = (await audit('?type=contribution.created', treasurer)).json().data[0];
    expect(full.changes.amount).toEqual({ from: null, to: 12550 });
    expect(full.data).toMatchObject({ amount: 12550, feeAmount: 300, lines: [{ fundId: 3, amount: 12550 }] });
  });

  it('401 without a token, 403 without audit:read; another tenant sees none of these changes', async () => {
    expectError(await api(ctx.app).get('/api/audit'), 401);
    expectError(await audit('', editor), 403);
    const leader = await newUser(ctx, t, 'Leader');
    expectError(await audit('', leader), 403);
    // The Admin role holds audit:read.
    expect((await audit('', t.admin)).statusCode).toBe(200);
    const other = (await audit(`?entityType=contact&entityId=${contactId}&limit=100`, b.admin)).json();
    expect(other.data.map((c: { type: string }) => c.type)).toEqual(['contact.created']);
    expect((await audit(`?actorUserId=${editor.id}`, b.admin)).json()).toMatchObject({ data: [], total: 0 });
  });
});
