import type { Db } from '../../db/client.js';
import { BadRequestError } from '../../lib/errors.js';
import type { Permission } from '../../lib/permissions.js';
import type { Principal } from '../../plugins/auth.js';
import type { HierarchyScope, Window } from './scope.js';

/**
 * What a standard report is (modules-contract §4): a key, the permissions it needs besides
 * reports:read, its parameters, typed columns, and ONE statement (or a very few) that computes its
 * rows and totals over the window and the hierarchy scope. JSON and CSV come from the same rows.
 */

/**
 * Column types. `group`, `contact`, `user` and `fund` cells are objects in JSON (`{id, name}`,
 * `{id, firstName, lastName}`, `{id, username}`; `ref` any other `{id, name}`); CSV writes them as two columns, `<key>Id` and the
 * name. `money` is an integer of minor units; `percent` a number 0–100 with two decimals.
 */
export type ColumnType = 'string' | 'integer' | 'number' | 'money' | 'percent' | 'date' | 'boolean' | 'group' | 'contact' | 'user' | 'fund' | 'ref';

export interface ReportColumn {
  key: string;
  label: string;
  type: ColumnType;
}

export type ParamType = 'date' | 'integer' | 'boolean' | 'string' | 'id';

export interface ReportParam {
  key: string;
  type: ParamType;
  required: boolean;
  default: string | number | boolean | null;
  options: string[] | null;
  description?: string;
  /** Bounds of an integer parameter. */
  min?: number;
  max?: number;
}

export type Row = Record<string, unknown>;

export interface ReportRunContext {
  tx: Db;
  auth: Principal;
  tenantId: number;
  timeZone: string;
  currency: string;
  today: string;
  window: Window;
  /** Null for tenant-wide reports (giving), which take no hierarchy scope. */
  scope: HierarchyScope | null;
  /** The report's own parameters, parsed, defaults applied. */
  params: Record<string, unknown>;
  /** The groupId / includeDescendants as asked (for reports that delegate to another module's query). */
  groupId?: number;
  includeDescendants: boolean;
}

export interface ReportResult {
  rows: Row[];
  totals: Row;
}

export interface ReportDefinition {
  key: string;
  name: string;
  description: string;
  /** Needed on top of reports:read (the underlying module's read permission). */
  permissions: Permission[];
  /** false: tenant-wide (giving); groupId is then 400. */
  hierarchy: boolean;
  /** The report's own parameters (besides from, to, groupId, includeDescendants, format). */
  params: ReportParam[];
  /** The default window, given today in the tenant's zone. */
  defaultWindow(today: string): Window;
  columns: ReportColumn[];
  run(ctx: ReportRunContext): Promise<ReportResult>;
}

export const param = (key: string, type: ParamType, extra: Partial<ReportParam> = {}): ReportParam => ({
  key, type, required: false, default: null, options: null, ...extra,
});

const DATE = /^(?!0000)\d{4}-\d{2}-\d{2}$/;

/** One query-string value parsed by its declared type; 400 naming it when malformed. */
export function parseParam(p: ReportParam, raw: string): unknown {
  const where = `querystring/${p.key}`;
  switch (p.type) {
    case 'date': {
      const d = new Date(`${raw}T00:00:00Z`);
      if (!DATE.test(raw) || Number.isNaN(d.getTime()) || d.toISOString().slice(0, 10) !== raw) throw new BadRequestError(`${where} must be a date YYYY-MM-DD`);
      return raw;
    }
    case 'boolean':
      if (raw === 'true' || raw === '1') return true;
      if (raw === 'false' || raw === '0') return false;
      throw new BadRequestError(`${where} must be a boolean`);
    case 'id':
    case 'integer': {
      if (!/^-?\d{1,16}$/.test(raw)) throw new BadRequestError(`${where} must be an integer`);
      const n = Number(raw);
      const min = p.min ?? (p.type === 'id' ? 1 : Number.MIN_SAFE_INTEGER);
      const max = p.max ?? Number.MAX_SAFE_INTEGER;
      if (!Number.isSafeInteger(n) || n < min || n > max) throw new BadRequestError(`${where} must be between ${min} and ${max}`);
      return n;
    }
    case 'string':
      if (p.options && !p.options.includes(raw)) throw new BadRequestError(`${where} must be one of ${p.options.join(', ')}`);
      if (raw.length > 200 || raw.includes('\u0000')) throw new BadRequestError(`${where} must be at most 200 characters`);
      return raw;
  }
}

/** Numbers of either driver (bigint/numeric arrive as strings on pg). */
export const num = (v: unknown): number => (v === null || v === undefined ? 0 : Number(v));

export const pct = (part: number, whole: number): number => (whole > 0 ? Math.round((part / whole) * 10_000) / 100 : 0);
