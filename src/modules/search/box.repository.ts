import { sql, type SQL } from 'drizzle-orm';
import type { Db } from '../../db/client.js';
import type { Principal } from '../../plugins/auth.js';
import { visibleGroupFilter, type GroupScope } from '../groups/groups.visibility.js';
import { taskVisibility } from '../tasks/tasks.service.js';
import type { SearchType } from './search.schemas.js';
import type { TextMatch } from './text-match.js';

/**
 * The search box in ONE statement: a UNION ALL of one branch per requested type, each taking its
 * matches from a search_*_ids function (migration 0011: trigram index, accents folded), keeping
 * only rows the caller may see, and returning its first `limit` rows with the count of all its
 * visible matches (a window count, so the total never counts what the caller may not read).
 */

export interface HitRow {
  kind: SearchType;
  id: number | string;
  title: string | null;
  subtitle: string | null;
  matched_on: string;
  total: number | string;
}

export interface BranchInput {
  tenantId: number;
  auth: Principal;
  scope: GroupScope;
  match: TextMatch;
  limit: number;
}

const fold = (value: SQL) => sql`search_fold(${value})`;

function contactsBranch({ tenantId, match, limit }: BranchInput): SQL {
  const pat = sql`${match.pattern}::text`;
  const digits = sql`${match.digits}::text`;
  const name = sql`concat_ws(' ', p.first_name, p.middle_name, p.last_name, co.name)`;
  // The page's ids and the count of all matches first (contact_search_page, migration 0017: accents
  // folded), then names, subtitle and matchedOn for those rows only.
  return sql`
    select 'contacts' as kind, c.id, coalesce(co.name, concat_ws(' ', p.first_name, p.last_name)) as title,
      coalesce(
        (select e.value from contact_emails e where e.tenant_id = c.tenant_id and e.contact_id = c.id order by e.is_primary desc, e.position, e.id limit 1),
        (select f.value from contact_phones f where f.tenant_id = c.tenant_id and f.contact_id = c.id order by f.is_primary desc, f.position, f.id limit 1)
      ) as subtitle,
      case
        when ${fold(name)} like search_fold(${pat}) then 'name'
        when ${digits} is not null and c.phone_digits like ${digits} then 'phone'
        when exists (select 1 from contact_emails e where e.tenant_id = c.tenant_id and e.contact_id = c.id and search_fold(e.value) like search_fold(${pat})) then 'email'
        else 'phone'
      end as matched_on,
      page.total
    from contact_search_page(${pat}, ${digits}, true, null, null, ${limit}::int, 0) page
    join contacts c on c.tenant_id = ${tenantId} and c.id = page.id
    left join persons p on p.tenant_id = c.tenant_id and p.contact_id = c.id
    left join companies co on co.tenant_id = c.tenant_id and co.contact_id = c.id
    order by page.sort_last, page.sort_first, page.id`;
}

/** The category's name for the page's rows only (a join before the limit multiplied every match by every category). */
function groupsBranch({ tenantId, scope, match, limit }: BranchInput): SQL {
  return sql`
    select 'groups' as kind, page.id, page.name as title,
      (select gc.name from group_categories gc where gc.tenant_id = ${tenantId} and gc.id = page.category_id) as subtitle,
      'name' as matched_on, page.total
    from (
      select "groups".id, "groups".name, "groups".category_id, (count(*) over ())::int as total
      from "groups"
      where "groups".tenant_id = ${tenantId} and "groups".id in (select search_group_ids(${match.pattern}::text))
        and ${visibleGroupFilter(scope)}
      order by "groups".name, "groups".id
      limit ${limit}
    ) page
    order by page.name, page.id`;
}

/** Events of visible groups, and events without a group (visible to everyone with events:read). */
function eventsBranch({ tenantId, scope, match, limit }: BranchInput): SQL {
  return sql`
    select 'events' as kind, ev.id, ev.name as title,
      concat_ws(' · ', ev.start_date::text, "groups".name) as subtitle, 'name' as matched_on, (count(*) over ())::int as total
    from events ev
    left join "groups" on "groups".tenant_id = ev.tenant_id and "groups".id = ev.group_id
    where ev.tenant_id = ${tenantId} and ev.id in (select search_event_ids(${match.pattern}::text))
      and (ev.group_id is null or ${visibleGroupFilter(scope)})
    order by ev.start_date desc, ev.id desc
    limit ${limit}`;
}

/** Requests of every contact (contacts:read is tenant-wide); Counseling and Welfare only with care:read. */
function requestsBranch({ tenantId, auth, match, limit }: BranchInput): SQL {
  const care = auth.permissions.has('care:read') ? sql`` : sql`and m.type not in ('Counseling', 'Welfare')`;
  return sql`
    select 'requests' as kind, r.id, concat(r.type, ' request: ', coalesce(co.name, concat_ws(' ', p.first_name, p.last_name))) as title,
      left(coalesce(r.description, ''), 120) as subtitle, 'description' as matched_on, page.total
    from (
      select m.id, m.created_at, (count(*) over ())::int as total
      from search_requests(${match.pattern}::text) m
      where true ${care}
      order by m.created_at desc, m.id desc
      limit ${limit}
    ) page
    join contact_requests r on r.tenant_id = ${tenantId} and r.id = page.id
    left join persons p on p.tenant_id = r.tenant_id and p.contact_id = r.contact_id
    left join companies co on co.tenant_id = r.tenant_id and co.contact_id = r.contact_id
    order by page.created_at desc, page.id desc`;
}

/** Tasks by the tasks module's own visibility rule (taskVisibility: over "tasks", with "groups" joined on the task's group). */
function tasksBranch({ tenantId, auth, scope, match, limit }: BranchInput): SQL {
  const visible = taskVisibility(auth, scope) ?? sql`true`;
  return sql`
    select 'tasks' as kind, "tasks".id, "tasks".title as title, concat_ws(' · ', "tasks".status, 'due ' || "tasks".due_date::text) as subtitle,
      case when search_fold("tasks".title) like search_fold(${match.pattern}::text) then 'title' else 'description' end as matched_on,
      (count(*) over ())::int as total
    from tasks as "tasks"
    left join "groups" on "groups".tenant_id = "tasks".tenant_id and "groups".id = "tasks".group_id
    where "tasks".tenant_id = ${tenantId} and "tasks".id in (select search_task_ids(${match.pattern}::text))
      and ${visible}
    order by "tasks".due_date nulls last, "tasks".id
    limit ${limit}`;
}

function usersBranch({ tenantId, match, limit }: BranchInput): SQL {
  return sql`
    select 'users' as kind, u.id, u.username as title, u.email as subtitle,
      case when search_fold(u.username) like search_fold(${match.pattern}::text) then 'username' else 'email' end as matched_on,
      (count(*) over ())::int as total
    from users u
    where u.tenant_id = ${tenantId} and u.id in (select search_user_ids(${match.pattern}::text))
    order by lower(u.username), u.id
    limit ${limit}`;
}

/**
 * Households whose name or a member's name matches (search_household_ids, migration 0034); the
 * title is the household's name, the subtitle its members' first names in joining order.
 */
function householdsBranch({ tenantId, match, limit }: BranchInput): SQL {
  return sql`
    select 'households' as kind, h.id, h.name as title,
      (select string_agg(p.first_name, ', ' order by m.position) from household_members m
        join persons p on p.tenant_id = m.tenant_id and p.contact_id = m.contact_id
        where m.tenant_id = h.tenant_id and m.household_id = h.id) as subtitle,
      case when search_fold(h.name) like search_fold(${match.pattern}::text) then 'name' else 'member' end as matched_on,
      (count(*) over ())::int as total
    from households h
    where h.tenant_id = ${tenantId} and h.id in (select search_household_ids(${match.pattern}::text))
    order by h.name, h.id
    limit ${limit}`;
}

const BRANCHES: Record<SearchType, (input: BranchInput) => SQL> = {
  households: householdsBranch,
  contacts: contactsBranch,
  groups: groupsBranch,
  events: eventsBranch,
  requests: requestsBranch,
  tasks: tasksBranch,
  users: usersBranch,
};

export function searchBoxSql(types: SearchType[], input: BranchInput): SQL {
  return sql.join(types.map((t) => sql`(${BRANCHES[t](input)})`), sql` union all `);
}

export async function searchBox(tx: Db, types: SearchType[], input: BranchInput): Promise<HitRow[]> {
  if (types.length === 0) return [];
  const result = await tx.execute(searchBoxSql(types, input));
  return (result as unknown as { rows: HitRow[] }).rows;
}
