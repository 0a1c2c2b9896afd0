import { and, eq, inArray, type SQL } from 'drizzle-orm';
import type { Db } from '../../db/client.js';
import { groups } from '../../db/schema/index.js';
import type { ContactStatus } from '../../db/schema/enums.js';
import { NotFoundError } from '../../lib/errors.js';
import { pageResult, toPage } from '../../lib/pagination.js';
import { todayIn } from '../../lib/periods.js';
import type { Principal } from '../../plugins/auth.js';
import { loadTenantSettings } from '../../tenancy/settings.js';
import { isGroupVisible, loadGroupScope, type GroupScope } from '../groups/groups.visibility.js';
import { countMatches, searchContactPage, type ContactRow } from './advanced.repository.js';
import { contactSources } from './contact-sources.js';
import { compileCriteria, type CompileContext } from './criteria-sql.js';
import type { CheckedCriteria } from './criteria.js';

/** What compiling needs from the database: the caller's scope, the tenant's today, the named groups. */
export interface Evaluator {
  /** The predicates of several criteria, with one lookup of all the groups they name. */
  compile(criteria: CheckedCriteria[], opts: { strictGroups: boolean }): Promise<SQL[]>;
}

/**
 * An evaluator bound to one transaction and caller. With `strictGroups` (a search, a save) a
 * memberOf group that is missing or invisible is a 404; without (reading a saved list) it matches
 * nobody, so a list naming a group the reader cannot see reveals nothing about it.
 */
export async function evaluatorFor(tx: Db, auth: Principal): Promise<Evaluator> {
  const scope = await loadGroupScope(tx, auth);
  const { timeZone } = await loadTenantSettings(tx, auth.tenantId);
  const today = todayIn(timeZone);
  return {
    async compile(list, { strictGroups }) {
      const groupPaths = await groupPathsOf(tx, auth.tenantId, scope, list);
      if (strictGroups) {
        const hidden = [...groupPaths].find(([, path]) => path === null);
        if (hidden) throw new NotFoundError('Group', hidden[0]);
      }
      const ctx: CompileContext = { tenantId: auth.tenantId, scope, today, timeZone, groupPaths, sources: contactSources };
      return list.map((criteria) => compileCriteria(criteria, ctx));
    },
  };
}

async function groupPathsOf(tx: Db, tenantId: number, scope: GroupScope, list: CheckedCriteria[]): Promise<Map<number, string | null>> {
  const named = list.flatMap((criteria) => criteria.conditions.flatMap((c) => (c.field === 'memberOf' || c.field === 'notMemberOf' ? [c.value] : [])));
  const ids = [...new Set(named)];
  const paths = new Map<number, string | null>(ids.map((id) => [id, null]));
  if (ids.length === 0) return paths;
  const rows = await tx
    .select({ id: groups.id, path: groups.path, privacy: groups.privacy })
    .from(groups)
    .where(and(eq(groups.tenantId, tenantId), inArray(groups.id, ids)));
  for (const row of rows) if (isGroupVisible(scope, row)) paths.set(row.id, row.path);
  return paths;
}

/** The contacts module's list item shape (GET /api/crm/contacts), from a search row. */
export function toListItem(r: ContactRow) {
  return {
    id: Number(r.id),
    category: r.category,
    status: r.status as ContactStatus,
    ...(r.category === 'Person' ? { person: { firstName: r.first_name ?? '', lastName: r.last_name ?? '', gender: r.gender } } : {}),
    ...(r.category === 'Company' ? { company: { name: r.company_name ?? '' } } : {}),
    emails: r.emails,
    phones: r.phones,
  };
}

export async function contactPage(tx: Db, auth: Principal, predicate: SQL, criteria: CheckedCriteria, request: { page?: number; limit?: number }) {
  const page = toPage(request);
  const { rows, total } = await searchContactPage(tx, auth.tenantId, predicate, criteria.sort, page.limit, page.offset);
  return pageResult(page, rows.map(toListItem), total);
}

export { countMatches };
