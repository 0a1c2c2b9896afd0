import { sql, type SQL } from 'drizzle-orm';
import type { Db } from '../../db/client.js';
import type { Page } from '../../lib/pagination.js';
import { periodSeriesSql, type Interval } from '../../lib/periods.js';
import { groupsIn, rowsOf, type HierarchyScope } from './scope.js';
import type { Rollup, SubmissionItem } from './templates.schemas.js';

interface SubmissionRow {
  id: string | number;
  template_id: string | number;
  template_name: string;
  group_id: string | number;
  group_name: string;
  period: string;
  values: Record<string, unknown>;
  submitted_by: string | number | null;
  username: string | null;
  submitted_at: string | Date;
  updated_at: string | Date;
  total?: string | number;
}

const iso = (v: string | Date) => new Date(v).toISOString();

function toItem(r: SubmissionRow): SubmissionItem {
  return {
    id: Number(r.id),
    template: { id: Number(r.template_id), name: r.template_name },
    group: { id: Number(r.group_id), name: r.group_name },
    period: r.period,
    values: r.values as SubmissionItem['values'],
    submittedBy: r.submitted_by === null ? null : { id: Number(r.submitted_by), username: r.username ?? '' },
    submittedAt: iso(r.submitted_at),
    updatedAt: iso(r.updated_at),
  };
}

/** The submission columns, joined to template, group and submitter; `where` is over s, t and g. */
function selectSubmissions(tenantId: number, where: SQL, tail: SQL = sql``): SQL {
  return sql`select s.id, s.template_id, t.name as template_name, s.group_id, g.name as group_name, s.period::text as period,
      s.values, s.submitted_by, u.username, s.submitted_at, s.updated_at, count(*) over () as total
    from report_submissions s
    join report_templates t on t.tenant_id = s.tenant_id and t.id = s.template_id
    join groups g on g.tenant_id = s.tenant_id and g.id = s.group_id
    left join users u on u.tenant_id = s.tenant_id and u.id = s.submitted_by
    where s.tenant_id = ${tenantId} and ${where} ${tail}`;
}

export interface SubmissionAccessRow {
  item: SubmissionItem;
  groupPath: string;
  groupPrivacy: string;
  submittedById: number | null;
  submittedAtMs: number;
  templateId: number;
}

export async function findSubmission(tx: Db, tenantId: number, id: number): Promise<SubmissionAccessRow | undefined> {
  const rows = rowsOf<SubmissionRow & { path: string; privacy: string }>(
    await tx.execute(sql`select x.*, g2.path, g2.privacy from (${selectSubmissions(tenantId, sql`s.id = ${id}`)}) x
      join groups g2 on g2.tenant_id = ${tenantId} and g2.id = x.group_id`),
  );
  const r = rows[0];
  if (!r) return undefined;
  const item = toItem(r);
  return { item, groupPath: r.path, groupPrivacy: r.privacy, submittedById: item.submittedBy?.id ?? null, submittedAtMs: Date.parse(item.submittedAt), templateId: item.template.id };
}

export async function existingSubmissionId(tx: Db, tenantId: number, templateId: number, groupId: number, period: string): Promise<number | undefined> {
  const rows = rowsOf<{ id: string | number }>(
    await tx.execute(sql`select id from report_submissions where tenant_id = ${tenantId} and template_id = ${templateId} and period = ${period}::date and group_id = ${groupId}`),
  );
  return rows[0] && Number(rows[0].id);
}

export async function insertSubmission(
  tx: Db,
  tenantId: number,
  v: { templateId: number; groupId: number; period: string; values: Record<string, unknown>; submittedBy: number },
): Promise<number> {
  const rows = rowsOf<{ id: string | number }>(
    await tx.execute(sql`insert into report_submissions (tenant_id, template_id, group_id, period, values, submitted_by)
      values (${tenantId}, ${v.templateId}, ${v.groupId}, ${v.period}::date, ${JSON.stringify(v.values)}::jsonb, ${v.submittedBy})
      returning id`),
  );
  return Number(rows[0].id);
}

export async function updateSubmissionValues(tx: Db, tenantId: number, id: number, values: Record<string, unknown>): Promise<void> {
  await tx.execute(sql`update report_submissions set values = ${JSON.stringify(values)}::jsonb, updated_at = now() where tenant_id = ${tenantId} and id = ${id}`);
}

export async function deleteSubmission(tx: Db, tenantId: number, id: number): Promise<void> {
  await tx.execute(sql`delete from report_submissions where tenant_id = ${tenantId} and id = ${id}`);
}

export async function getSubmission(tx: Db, tenantId: number, id: number): Promise<SubmissionItem> {
  const found = await findSubmission(tx, tenantId, id);
  if (!found) throw new Error(`submission ${id} vanished`);
  return found.item;
}

/** A template's submissions for visible groups in scope, newest period first, then group name. */
export async function listSubmissions(
  tx: Db,
  tenantId: number,
  templateId: number,
  h: HierarchyScope,
  window: { from?: string; to?: string },
  page: Page,
): Promise<{ items: SubmissionItem[]; total: number }> {
  const where: SQL[] = [sql`s.template_id = ${templateId}`, groupsIn(h)];
  if (window.from) where.push(sql`s.period >= ${window.from}::date`);
  if (window.to) where.push(sql`s.period <= ${window.to}::date`);
  const rows = rowsOf<SubmissionRow>(
    await tx.execute(
      selectSubmissions(tenantId, sql.join(where, sql` and `), sql`order by s.period desc, g.name, g.id limit ${page.limit} offset ${page.offset}`),
    ),
  );
  let total = rows[0] ? Number(rows[0].total) : 0;
  if (rows.length === 0 && page.offset > 0) {
    const [c] = rowsOf<{ n: string | number }>(
      await tx.execute(sql`select count(*) as n from report_submissions s join groups g on g.tenant_id = s.tenant_id and g.id = s.group_id
        where s.tenant_id = ${tenantId} and ${sql.join(where, sql` and `)}`),
    );
    total = Number(c.n);
  }
  return { items: rows.map(toItem), total };
}

/**
 * The rollup in ONE statement: for every period of the window, how many groups of the template's
 * category in scope reported, which did not, and the sums of the numeric fields (in SQL, as numeric).
 */
export async function rollup(
  tx: Db,
  tenantId: number,
  template: { id: number; groupCategoryId: number },
  numericKeys: string[],
  h: HierarchyScope,
  window: { from: string; to: string },
  interval: Interval,
): Promise<Rollup['periods']> {
  const keys = sql`array[${sql.join([sql`''`, ...numericKeys.map((k) => sql`${k}`)], sql`, `)}]::text[]`;
  const rows = rowsOf<{ period: string; submitted: string | number; missing: { id: number; name: string }[]; sums: Record<string, number> }>(
    await tx.execute(sql`
      with p as ${periodSeriesSql(window.from, window.to, interval)},
      sg as (select g.id, g.name from groups g where g.tenant_id = ${tenantId} and g.category_id = ${template.groupCategoryId} and ${groupsIn(h)}),
      s as (
        select s.period, s.group_id, s.values from report_submissions s
        where s.tenant_id = ${tenantId} and s.template_id = ${template.id}
          and s.period >= (select min(period) from p) and s.period <= ${window.to}::date
          and s.group_id in (select id from sg)
      )
      select p.period::text as period,
        (select count(*) from s where s.period = p.period) as submitted,
        (select coalesce(jsonb_agg(jsonb_build_object('id', sg.id, 'name', sg.name) order by sg.name, sg.id), '[]'::jsonb) from sg
          where not exists (select 1 from s where s.period = p.period and s.group_id = sg.id)) as missing,
        (select coalesce(jsonb_object_agg(k.key, k.total), '{}'::jsonb) from (
          select f.key, sum((s.values ->> f.key)::numeric) as total
          from s cross join unnest(${keys}) as f(key)
          where s.period = p.period and f.key <> '' and jsonb_typeof(s.values -> f.key) = 'number'
          group by f.key) k) as sums
      from p order by p.period`),
  );
  return rows.map((r) => ({
    period: r.period,
    submitted: Number(r.submitted),
    missing: r.missing.map((m) => ({ id: Number(m.id), name: m.name })),
    sums: Object.fromEntries(numericKeys.map((k) => [k, Number(r.sums[k] ?? 0)])),
  }));
}
