import type { Db } from '../../db/client.js';
import { seedAttendanceDemo } from '../attendance/attendance.seed.js';
import { seedTasksDemo, seedTasksTenant } from '../tasks/tasks.seed.js';
import { seedFinanceDemo } from '../finance/finance.seed.js';

/**
 * What the modules add to a tenant. `tenant` runs inside createTenant's transaction (bound to the new
 * tenant) for every new church: defaults such as the follow-up pipeline. `demo` runs after the demo
 * tenant's hierarchy and people exist, so a newcomer sees a living church.
 * Each module adds one line to each list; a seeder never imports the tenants module.
 */
export interface DemoContext {
  tenantId: number;
  adminUserId: number;
  /** Group ids by name (see demo-seed.ts TREE). */
  groups: Map<string, number>;
  /** The demo people's contact ids, in PEOPLE order. */
  people: number[];
  /** Extra people (guests and members) created for the modules' demo data. */
  morePeople: number[];
}

export type TenantSeeder = (tx: Db, tenantId: number) => Promise<void>;
export type DemoSeeder = (db: Db, demo: DemoContext) => Promise<void>;

export const TENANT_SEEDERS: TenantSeeder[] = [
  seedTasksTenant,
  // one line per module
];

export const DEMO_SEEDERS: DemoSeeder[] = [
  seedFinanceDemo,
  seedTasksDemo,
  seedAttendanceDemo,
  // one line per module
];
