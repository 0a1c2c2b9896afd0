import { and, eq } from 'drizzle-orm';
import { describe, expect, it } from 'vitest';
import { eventCategories, groupCategories, groups, roles, tenants, users } from '../../src/db/schema/index.js';
import { ALL_PERMISSIONS } from '../../src/lib/permissions.js';
import { syncSystemRoles } from '../../src/modules/tenants/tenants.service.js';
import { createTenant } from '../../src/provisioning/create-tenant.js';
import { DEMO_SLUG, seedDemoTenant } from '../../src/provisioning/demo-seed.js';
import { api, setupTestApp } from '../helpers/app.js';
import { newTenant, PASSWORD } from '../helpers/factories.js';

const ctx = setupTestApp();

describe('tenant seeding', () => {
  it('seeds the six hierarchy categories, event categories, the three roles and the admin', async () => {
    const t = await newTenant(ctx);
    const cats = await ctx.db.select().from(groupCategories).where(eq(groupCategories.tenantId, t.id));
    expect(cats.map((c) => [c.name, c.level, c.purpose]).sort((a, b) => Number(a[1]) - Number(b[1]))).toEqual([
      ['Church', 1, 'Hierarchy'], ['Network', 2, 'Hierarchy'], ['Location', 3, 'Hierarchy'],
      ['Zone', 4, 'Hierarchy'], ['Cluster', 5, 'Hierarchy'], ['Fellowship', 6, 'Hierarchy'],
    ]);
    expect(cats.every((c) => (c.description ?? '').length > 0)).toBe(true);
    expect((await ctx.db.select().from(eventCategories).where(eq(eventCategories.tenantId, t.id))).length).toBeGreaterThan(0);
    const roleRows = await ctx.db.select().from(roles).where(eq(roles.tenantId, t.id));
    const byName = Object.fromEntries(roleRows.map((r) => [r.name, r]));
    expect(Object.keys(byName).sort()).toEqual(['Admin', 'Check-in', 'Leader', 'Member', 'Treasurer']);
    expect([...byName.Admin.permissions].sort()).toEqual([...ALL_PERMISSIONS].sort());
    expect([...byName.Member.permissions].sort()).toEqual(['events:read', 'groups:read']);
    expect(byName.Leader.permissions).toEqual(expect.arrayContaining(['contacts:read', 'contacts:write', 'groups:read', 'groups:write', 'events:read', 'events:write']));
    expect(byName.Leader.permissions).toEqual(expect.arrayContaining(['attendance:read', 'attendance:write', 'checkin:write', 'tasks:read', 'tasks:write', 'reports:read']));
    expect(byName.Leader.permissions).not.toContain('hierarchy:all');
    expect([...byName.Treasurer.permissions].sort()).toEqual(['contacts:read', 'finance:read', 'finance:write', 'reports:read']);
    expect([...byName['Check-in'].permissions].sort()).toEqual(['checkin:write']);
    expect(roleRows.every((r) => r.isSystem)).toBe(true);
    const [tenant] = await ctx.db.select().from(tenants).where(eq(tenants.id, t.id));
    expect(tenant.allowRegistration).toBe(true);
  });

  it('refuses a duplicate slug (any case), a bad slug and a weak password without writing', async () => {
    const t = await newTenant(ctx);
    const input = { slug: t.slug.toUpperCase(), name: 'Again', adminUsername: 'admin', adminPassword: PASSWORD };
    await expect(createTenant(ctx.db, input)).rejects.toThrow(`A tenant with slug ${t.slug} already exists`);
    await expect(createTenant(ctx.db, { ...input, slug: '-bad' })).rejects.toThrow(/slug must be/);
    await expect(createTenant(ctx.db, { ...input, slug: 'a' })).rejects.toThrow(/slug must be/);
    await expect(createTenant(ctx.db, { ...input, slug: 'fine-slug', adminPassword: 'short' })).rejects.toThrow(/admin password/);
    await expect(createTenant(ctx.db, { ...input, slug: 'fine-slug', adminUsername: 'a b' })).rejects.toThrow(/admin username/);
    expect(await ctx.db.select().from(tenants).where(eq(tenants.slug, 'fine-slug'))).toEqual([]);
  });

  it('concurrent creates of one slug: one wins, the other is the same clear conflict', async () => {
    const input = { slug: 'race-church', name: 'Race', adminUsername: 'admin', adminPassword: PASSWORD };
    const results = await Promise.allSettled([createTenant(ctx.db, input), createTenant(ctx.db, input)]);
    expect(results.filter((r) => r.status === 'fulfilled')).toHaveLength(1);
    const rejected = results.find((r) => r.status === 'rejected') as PromiseRejectedResult;
    expect(rejected.reason.message).toBe('A tenant with slug race-church already exists');
  });

  it('syncSystemRoles gives every Admin role the whole catalog again', async () => {
    const t = await newTenant(ctx);
    await ctx.db.update(roles).set({ permissions: ['contacts:read'] }).where(and(eq(roles.tenantId, t.id), eq(roles.name, 'Admin')));
    await syncSystemRoles(ctx.db);
    const [admin] = await ctx.db.select().from(roles).where(and(eq(roles.tenantId, t.id), eq(roles.name, 'Admin')));
    expect([...admin.permissions].sort()).toEqual([...ALL_PERMISSIONS].sort());
  });

  it('the demo seed creates a hierarchy and an admin who can log in with the printed password', async () => {
    const { password } = await seedDemoTenant(ctx.db);
    expect(password.length).toBeGreaterThanOrEqual(12);
    const [demo] = await ctx.db.select().from(tenants).where(eq(tenants.slug, DEMO_SLUG));
    const tree = await ctx.db.select().from(groups).where(eq(groups.tenantId, demo.id));
    expect(tree.length).toBeGreaterThanOrEqual(6);
    expect(tree.filter((g) => g.parentId === null)).toHaveLength(1);
    const res = await api(ctx.app).post('/api/auth/login', { churchName: DEMO_SLUG, username: 'admin', password });
    expect(res.statusCode).toBe(200);
    expect(res.json().user.roles).toEqual(['Admin']);
    const admins = await ctx.db.select().from(users).where(eq(users.tenantId, demo.id));
    expect(admins.some((u) => u.username === 'admin')).toBe(true);
  });
});
