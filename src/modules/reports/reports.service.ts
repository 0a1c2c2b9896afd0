import { withTenant, type Db } from '../../db/client.js';
import { BadRequestError, ForbiddenError, NotFoundError } from '../../lib/errors.js';
import { todayIn } from '../../lib/periods.js';
import type { Principal } from '../../plugins/auth.js';
import { loadTenantSettings } from '../../tenancy/settings.js';
import { param, parseParam, type ReportDefinition, type ReportParam, type ReportResult, type Row } from './report.types.js';
import { REPORTS } from './reports.registry.js';
import { checkWindow, resolveScope, type HierarchyScope } from './scope.js';

/** Parameters every report takes (groupId and includeDescendants only the hierarchy-scoped ones). */
const WINDOW_PARAMS: ReportParam[] = [
  param('from', 'date', { description: 'First day of the window (default: per report)' }),
  param('to', 'date', { description: 'Last day of the window (default: per report, usually today)' }),
];
const SCOPE_PARAMS: ReportParam[] = [
  param('groupId', 'id', { description: 'Limit to this visible group (and its subtree)' }),
  param('includeDescendants', 'boolean', { default: true }),
];
const FORMAT_PARAM = param('format', 'string', { default: 'json', options: ['json', 'csv'] });

export function parametersOf(def: ReportDefinition): ReportParam[] {
  return [...WINDOW_PARAMS, ...(def.hierarchy ? SCOPE_PARAMS : []), ...def.params, FORMAT_PARAM].map(({ min, max, ...p }) => {
    void min;
    void max;
    return p;
  });
}

/** Lower-case ASCII words joined by '-' (a file name part). */
function slug(text: string): string {
  return text.normalize('NFKD').replace(/[\u0300-\u036f]/g, '').toLowerCase().replace(/[^a-z0-9]+/g, '-').replace(/^-+|-+$/g, '').slice(0, 60) || 'group';
}

/**
 * The scope as a file name part: the group's name (with `-only` when its subtree is left out),
 * `all-groups` for every group the caller sees, `whole-church` for the tenant-wide reports.
 */
export function scopeLabel(def: ReportDefinition, scope: HierarchyScope | null): string {
  if (!def.hierarchy || !scope) return 'whole-church';
  if (!scope.root) return 'all-groups';
  return `${slug(scope.root.name)}${scope.includeDescendants ? '' : '-only'}`;
}

/** The CSV's file name: the report, its scope and its window, e.g. `attendance-trend_north-zone_2026-01-04_to_2026-03-28.csv`. */
export function csvFileName(key: string, scope: string, window: { from: unknown; to: unknown }): string {
  return `${key}_${scope}_${String(window.from)}_to_${String(window.to)}.csv`;
}

export function canRun(auth: Principal, def: ReportDefinition): boolean {
  return auth.permissions.has('reports:read') && def.permissions.every((p) => auth.permissions.has(p));
}

export interface ReportOutput extends ReportResult {
  key: string;
  name: string;
  parameters: Row;
  columns: ReportDefinition['columns'];
  currency?: string;
}

export function createReportsService({ db }: { db: Db }) {
  return {
    catalog(auth: Principal) {
      const data = REPORTS.filter((d) => canRun(auth, d)).map((d) => ({
        key: d.key, name: d.name, description: d.description, parameters: parametersOf(d), permissions: ['reports:read', ...d.permissions],
      }));
      return { data, total: data.length, page: 1, limit: Math.max(data.length, 1) };
    },

    /** Runs one report: unknown key 404, missing permission 403, unknown or malformed parameter 400. */
    run(auth: Principal, key: string, query: Record<string, unknown>): Promise<{ output: ReportOutput; format: 'json' | 'csv'; definition: ReportDefinition; scopeLabel: string }> {
      const def = REPORTS.find((d) => d.key === key);
      if (!def) throw new NotFoundError(`Report ${key}`);
      if (!canRun(auth, def)) throw new ForbiddenError(`Report ${key} needs the permissions ${['reports:read', ...def.permissions].join(', ')}`);
      if (!def.hierarchy && query.groupId !== undefined) {
        throw new BadRequestError(`querystring/groupId: report ${key} is tenant-wide (giving is never scoped by the hierarchy)`);
      }
      const known = [...WINDOW_PARAMS, ...(def.hierarchy ? SCOPE_PARAMS : []), ...def.params, FORMAT_PARAM];
      const parsed: Record<string, unknown> = {};
      for (const [name, raw] of Object.entries(query)) {
        const p = known.find((k) => k.key === name);
        if (!p) throw new BadRequestError(`querystring/${name} is not a parameter of report ${key}`);
        if (typeof raw !== 'string') throw new BadRequestError(`querystring/${name} must be given once`);
        parsed[name] = parseParam(p, raw);
      }
      for (const p of def.params) {
        if (parsed[p.key] === undefined && p.required) throw new BadRequestError(`querystring/${p.key} is required`);
        if (parsed[p.key] === undefined && p.default !== null) parsed[p.key] = p.default;
      }
      return withTenant(db, auth, async (tx) => {
        const settings = await loadTenantSettings(tx, auth.tenantId);
        const today = todayIn(settings.timeZone);
        const fallback = def.defaultWindow((parsed.to as string | undefined) ?? today);
        const from = (parsed.from as string | undefined) ?? fallback.from;
        const to = (parsed.to as string | undefined) ?? (parsed.from && (parsed.from as string) > fallback.to ? (parsed.from as string) : fallback.to);
        const window = checkWindow({ from, to });
        const includeDescendants = (parsed.includeDescendants as boolean | undefined) ?? true;
        const groupId = parsed.groupId as number | undefined;
        const scope = def.hierarchy ? await resolveScope(tx, auth, groupId, includeDescendants) : null;
        const own = Object.fromEntries(def.params.map((p) => [p.key, parsed[p.key] ?? null]));
        const result = await def.run({
          tx, auth, tenantId: auth.tenantId, timeZone: settings.timeZone, currency: settings.currency, today, window, scope, params: own, groupId, includeDescendants,
        });
        const parameters: Row = { from: window.from, to: window.to, ...(def.hierarchy ? { groupId: groupId ?? null, includeDescendants } : {}), ...own };
        const money = def.columns.some((c) => c.type === 'money');
        return {
          output: { key: def.key, name: def.name, parameters, columns: def.columns, rows: result.rows, totals: result.totals, ...(money ? { currency: settings.currency } : {}) },
          format: (parsed.format as 'json' | 'csv' | undefined) ?? 'json',
          definition: def,
          scopeLabel: scopeLabel(def, scope),
        };
      });
    },
  };
}
