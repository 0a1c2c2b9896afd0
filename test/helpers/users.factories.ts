import { and, eq } from 'drizzle-orm';
import { roles } from '../../src/db/schema/index.js';
import { api, type TestContext } from './app.js';
import { PASSWORD, type TestTenant } from './factories.js';

/** The id of a role of the tenant by name (the seeded Admin, Leader, Member, or a factory role). */
export async function roleId(ctx: TestContext, tenant: TestTenant, name: string): Promise<number> {
  const [row] = await ctx.db.select({ id: roles.id }).from(roles).where(and(eq(roles.tenantId, tenant.id), eq(roles.name, name)));
  if (!row) throw new Error(`no role ${name} in tenant ${tenant.slug}`);
  return row.id;
}

/** A real login through /api/auth/login (a refresh token in the database, a session id in the token). */
export async function login(ctx: TestContext, tenant: TestTenant, username: string, password = PASSWORD) {
  const res = await api(ctx.app).post('/api/auth/login', { username, password, churchName: tenant.slug });
  if (res.statusCode !== 200) throw new Error(`login of ${username} failed: ${res.statusCode} ${res.body}`);
  return res.json() as { accessToken: string; refreshToken: string; user: { id: number } };
}
