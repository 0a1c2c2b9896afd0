import { withTenant, type Db } from '../../db/client.js';
import { BadRequestError, ForbiddenError } from '../../lib/errors.js';
import type { Permission } from '../../lib/permissions.js';
import type { Principal } from '../../plugins/auth.js';
import { loadGroupScope } from '../groups/groups.visibility.js';
import { searchBox } from './box.repository.js';
import { SEARCH_TYPES, type SearchHit, type SearchQuery, type SearchType } from './search.schemas.js';
import { textMatch } from './text-match.js';

/** The permission that opens each type of the search box (modules-contract §5). */
export const TYPE_PERMISSION: Record<SearchType, Permission> = {
  contacts: 'contacts:read',
  requests: 'contacts:read',
  groups: 'groups:read',
  events: 'events:read',
  tasks: 'tasks:read',
  users: 'users:read',
  households: 'contacts:read',
};

/** The requested types: named ones must exist and be readable; none named = every readable type. */
export function resolveTypes(auth: Principal, types: string | undefined): SearchType[] {
  const readable = (t: SearchType) => auth.permissions.has(TYPE_PERMISSION[t]);
  if (types === undefined) return SEARCH_TYPES.filter(readable);
  const named = [...new Set(types.split(',').map((t) => t.trim()))];
  if (named.length === 0 || named.some((t) => t === '')) throw new BadRequestError('querystring/types must be a comma list of types');
  for (const t of named) {
    if (!(SEARCH_TYPES as readonly string[]).includes(t)) {
      throw new BadRequestError(`querystring/types: unknown type '${t}' (allowed: ${SEARCH_TYPES.join(', ')})`);
    }
  }
  for (const t of named as SearchType[]) {
    if (!readable(t)) throw new ForbiddenError(`Searching ${t} requires the ${TYPE_PERMISSION[t]} permission`);
  }
  // The answer lists types in the contract's order whatever order they were named in.
  return SEARCH_TYPES.filter((t) => named.includes(t));
}

export function createBoxService(db: Db) {
  return {
    async search(auth: Principal, query: SearchQuery) {
      const q = query.q.trim();
      if (q.length < 2) throw new BadRequestError('querystring/q must be at least 2 characters once trimmed');
      const types = resolveTypes(auth, query.types);
      const limit = query.limit ?? 5;
      const results: Partial<Record<SearchType, SearchHit[]>> = {};
      const totals: Partial<Record<SearchType, number>> = {};
      for (const t of types) {
        results[t] = [];
        totals[t] = 0;
      }
      if (types.length > 0) {
        const rows = await withTenant(db, auth, async (tx) => {
          // Group visibility matters to groups, events and tasks only.
          const needsScope = types.some((t) => t === 'groups' || t === 'events' || t === 'tasks');
          const scope = needsScope ? await loadGroupScope(tx, auth) : { all: false, ledPaths: [], memberGroupIds: [] };
          return searchBox(tx, types, { tenantId: auth.tenantId, auth, scope, match: textMatch(q), limit });
        });
        for (const row of rows) {
          results[row.kind]!.push({ id: Number(row.id), title: row.title ?? '', subtitle: row.subtitle || null, matchedOn: row.matched_on });
          totals[row.kind] = Number(row.total);
        }
      }
      return { q, results, totals };
    },
  };
}
