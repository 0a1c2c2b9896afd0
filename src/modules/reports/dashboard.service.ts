import { sql } from 'drizzle-orm';
import { withTenant, type Db } from '../../db/client.js';
import { addDays, daysBetween, defaultWindow, periodStarts, todayIn } from '../../lib/periods.js';
import type { Principal } from '../../plugins/auth.js';
import { loadTenantSettings } from '../../tenancy/settings.js';
import * as repo from './dashboard.repository.js';
import type { Dashboard, DashboardQuery } from './dashboard.schemas.js';
import { checkWindow, resolveScope } from './scope.js';

/**
 * GET /api/dashboard: every section the caller may read, each ONE query, all sent as ONE statement
 * (batchQueries) after the tenant settings and the caller's place in the tree. Default window: the last 4 weeks (this one included),
 * compared with the window of the same length just before.
 */
export function createDashboardService({ db }: { db: Db }) {
  return {
    get: (auth: Principal, query: DashboardQuery): Promise<Dashboard> =>
      withTenant(db, auth, async (tx) => {
        const settings = await loadTenantSettings(tx, auth.tenantId);
        const today = todayIn(settings.timeZone);
        const fallback = defaultWindow(query.to ?? today, 'week', 4);
        const current = checkWindow({ from: query.from ?? fallback.from, to: query.to ?? (query.from && query.from > fallback.to ? query.from : fallback.to) });
        const length = daysBetween(current.from, current.to) + 1;
        const previous = { from: addDays(current.from, -length), to: addDays(current.from, -1) };
        const w = { current, previous };
        const h = await resolveScope(tx, auth, query.groupId, query.includeDescendants ?? true);
        const can = (p: string) => auth.permissions.has(p as never);
        // Every section asked for here goes out as ONE statement (see batchQueries). No JIT for it: the
        // sum of its sections' estimates passes jit_above_cost, and compiling its ~200 expressions cost
        // 3.2 s of a Zone leader's 3.6 s on the large bench tenant, for sections that run in milliseconds.
        await tx.execute(sql`set local jit = off`);
        // The caller's scope as ONE set of groups the sections share (GroupTest), read once by the batch.
        const groups = repo.groupTest(auth.tenantId, h);
        const q = repo.batchQueries(tx, groups);
        const [people, attendance, giving, groupCounts, events, tasks, care, occasions] = await Promise.all([
          can('contacts:read') ? repo.peopleSection(q, auth.tenantId, settings.timeZone, w) : undefined,
          can('attendance:read') ? repo.attendanceSection(q, auth.tenantId, groups, w) : undefined,
          can('finance:read') ? repo.givingSection(q, auth.tenantId, w) : undefined,
          can('groups:read') ? repo.groupsSection(q, auth.tenantId, groups) : undefined,
          can('events:read') ? repo.eventsSection(q, auth.tenantId, groups, today) : undefined,
          repo.tasksSection(q, auth, groups, today),
          can('care:read') ? repo.careSection(q, auth.tenantId) : undefined,
          can('contacts:read') ? repo.occasionsSection(q, auth.tenantId, today) : undefined,
        ]);
        return {
          period: current,
          previousPeriod: previous,
          currency: settings.currency,
          ...(people ? { people: { total: people.total, byStatus: people.byStatus, newInPeriod: people.newInPeriod, changePct: people.changePct } } : {}),
          ...(attendance
            ? {
                attendance: {
                  averagePresent: attendance.averagePresent,
                  changePct: attendance.changePct,
                  firstTimeGuests: attendance.firstTimeGuests,
                  series: periodStarts(current.from, current.to, 'week').map((period) => ({ period, present: attendance.byPeriod.get(period) ?? 0 })),
                },
              }
            : {}),
          ...(giving ? { giving: { total: giving.total, donors: giving.donors, averageGift: giving.averageGift, changePct: giving.changePct, byFund: giving.byFund } } : {}),
          ...(groupCounts ? { groups: groupCounts } : {}),
          ...(events ? { events } : {}),
          tasks,
          ...(care ? { care } : {}),
          ...(occasions ? { occasions } : {}),
        };
      }),
  };
}
