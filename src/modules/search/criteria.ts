import { CIVIL_STATUSES, CONTACT_CATEGORIES, CONTACT_STATUSES, GENDERS, MEMBERSHIP_ROLES } from '../../db/schema/enums.js';
import { BadRequestError, ForbiddenError } from '../../lib/errors.js';
import type { Principal } from '../../plugins/auth.js';
import { CONDITION_FIELDS, type ConditionField, type ContactSort, type Criteria } from './search.schemas.js';

/**
 * The conditions of an advanced search (modules-contract §5), checked before anything runs: an
 * unknown field or operator, or a value of the wrong type for its operator, is a 400 naming it.
 * What comes out is typed, so the SQL compiler (criteria-sql.ts) never sees an unchecked value.
 */

export type TextOp = 'eq' | 'neq' | 'in' | 'contains' | 'startsWith' | 'isEmpty';
export type RangeOp = 'eq' | 'gt' | 'lt' | 'between';

export type TextField = 'firstName' | 'lastName' | 'occupation' | 'gender' | 'civilStatus' | 'status' | 'category' | 'city' | 'country';
export type DaysField = 'attendedWithinDays' | 'notAttendedWithinDays' | 'firstVisitWithinDays' | 'gaveWithinDays' | 'notGaveWithinDays' | 'createdWithinDays';

export type CheckedCondition =
  | { field: TextField; op: 'eq' | 'neq' | 'contains' | 'startsWith'; value: string }
  | { field: TextField; op: 'in'; value: string[] }
  | { field: TextField; op: 'isEmpty'; value: boolean }
  | { field: 'age'; op: 'eq' | 'gt' | 'lt'; value: number }
  | { field: 'age'; op: 'between'; value: [number, number] }
  | { field: 'dateOfBirth'; op: 'eq' | 'gt' | 'lt'; value: string }
  | { field: 'dateOfBirth'; op: 'between'; value: [string, string] }
  | { field: 'birthdayInDays'; op: 'lt'; value: number }
  | { field: 'memberOf' | 'notMemberOf'; op: 'eq'; value: number }
  | { field: 'role'; op: 'eq'; value: (typeof MEMBERSHIP_ROLES)[number] }
  | { field: DaysField; op: 'lt'; value: number };

export interface CheckedCriteria {
  match: 'all' | 'any';
  conditions: CheckedCondition[];
  sort: ContactSort;
}

const TEXT_OPS = ['eq', 'neq', 'in', 'contains', 'startsWith', 'isEmpty'] as const;
const RANGE_OPS = ['eq', 'gt', 'lt', 'between'] as const;

/** Closed value sets: eq, neq and in must name one of them. */
const ENUMS: Partial<Record<TextField, readonly string[]>> = {
  gender: GENDERS, civilStatus: CIVIL_STATUSES, status: CONTACT_STATUSES, category: CONTACT_CATEGORIES,
};

const OPERATORS: Record<ConditionField, readonly string[]> = {
  firstName: TEXT_OPS, lastName: TEXT_OPS, gender: TEXT_OPS, civilStatus: TEXT_OPS, occupation: TEXT_OPS,
  status: TEXT_OPS, category: TEXT_OPS, city: TEXT_OPS, country: TEXT_OPS,
  age: RANGE_OPS, dateOfBirth: RANGE_OPS,
  birthdayInDays: ['lt'],
  memberOf: ['eq'], notMemberOf: ['eq'], role: ['eq'],
  attendedWithinDays: ['lt'], notAttendedWithinDays: ['lt'], firstVisitWithinDays: ['lt'],
  gaveWithinDays: ['lt'], notGaveWithinDays: ['lt'], createdWithinDays: ['lt'],
};

export const GIVING_FIELDS: readonly ConditionField[] = ['gaveWithinDays', 'notGaveWithinDays'];
export const ATTENDANCE_FIELDS: readonly ConditionField[] = ['attendedWithinDays', 'notAttendedWithinDays', 'firstVisitWithinDays'];
export const GROUP_FIELDS: readonly ConditionField[] = ['memberOf', 'notMemberOf', 'role'];

const MAX_DAYS = 36_500;
const MAX_AGE = 150;
const MAX_TEXT = 200;
const MAX_IN = 50;
const DATE = /^(?!0000)\d{4}-\d{2}-\d{2}$/;

function isRealDate(value: string): boolean {
  if (!DATE.test(value)) return false;
  const d = new Date(`${value}T00:00:00Z`);
  return !Number.isNaN(d.getTime()) && d.toISOString().slice(0, 10) === value;
}

class ValueChecker {
  constructor(private readonly path: string) {}

  fail(rule: string): never {
    throw new BadRequestError(`${this.path}/value ${rule}`);
  }

  text(v: unknown): string {
    if (typeof v !== 'string') this.fail('must be a string');
    const s = (v as string).trim();
    if (s.length === 0 || s.length > MAX_TEXT) this.fail(`must be 1–${MAX_TEXT} characters`);
    return s;
  }

  oneOf(v: unknown, allowed: readonly string[]): string {
    const s = this.text(v);
    if (!allowed.includes(s)) this.fail(`must be one of ${allowed.join(', ')}`);
    return s;
  }

  int(v: unknown, min: number, max: number): number {
    if (typeof v !== 'number' || !Number.isInteger(v) || v < min || v > max) this.fail(`must be an integer from ${min} to ${max}`);
    return v as number;
  }

  date(v: unknown): string {
    if (typeof v !== 'string' || !isRealDate(v)) this.fail('must be a date YYYY-MM-DD');
    return v as string;
  }

  pair<T>(v: unknown, item: (x: unknown) => T): [T, T] {
    if (!Array.isArray(v) || v.length !== 2) this.fail('must be [low, high]');
    const [low, high] = [item((v as unknown[])[0]), item((v as unknown[])[1])];
    if (low > high) this.fail('must be [low, high] with low ≤ high');
    return [low, high];
  }
}

function checkText(field: TextField, op: TextOp, value: unknown, c: ValueChecker): CheckedCondition {
  const allowed = ENUMS[field];
  const exact = (v: unknown) => (allowed ? c.oneOf(v, allowed) : c.text(v));
  switch (op) {
    case 'eq':
    case 'neq':
      return { field, op, value: exact(value) };
    case 'in': {
      if (!Array.isArray(value) || value.length === 0 || value.length > MAX_IN) c.fail(`must be an array of 1–${MAX_IN} values`);
      return { field, op, value: (value as unknown[]).map(exact) };
    }
    case 'contains':
    case 'startsWith':
      return { field, op, value: c.text(value) };
    case 'isEmpty':
      if (value !== undefined && value !== null && typeof value !== 'boolean') c.fail('must be a boolean (true: empty, false: not empty) or absent');
      return { field, op, value: value !== false };
  }
}

function checkOne(raw: { field: string; operator: string; value?: unknown }, path: string): CheckedCondition {
  const field = raw.field as ConditionField;
  if (!(CONDITION_FIELDS as readonly string[]).includes(raw.field)) {
    throw new BadRequestError(`${path}/field: unknown field '${raw.field}' (allowed: ${CONDITION_FIELDS.join(', ')})`);
  }
  const ops = OPERATORS[field];
  if (!ops.includes(raw.operator)) {
    throw new BadRequestError(`${path}/operator: unknown operator '${raw.operator}' for field ${field} (allowed: ${ops.join(', ')})`);
  }
  const c = new ValueChecker(path);
  const value = raw.value;
  switch (field) {
    case 'age':
      return raw.operator === 'between'
        ? { field, op: 'between', value: c.pair(value, (x) => c.int(x, 0, MAX_AGE)) }
        : { field, op: raw.operator as 'eq' | 'gt' | 'lt', value: c.int(value, 0, MAX_AGE) };
    case 'dateOfBirth':
      return raw.operator === 'between'
        ? { field, op: 'between', value: c.pair(value, (x) => c.date(x)) }
        : { field, op: raw.operator as 'eq' | 'gt' | 'lt', value: c.date(value) };
    case 'birthdayInDays':
      return { field, op: 'lt', value: c.int(value, 1, 366) };
    case 'memberOf':
    case 'notMemberOf':
      return { field, op: 'eq', value: c.int(value, 1, Number.MAX_SAFE_INTEGER) };
    case 'role':
      return { field, op: 'eq', value: c.oneOf(value, MEMBERSHIP_ROLES) as (typeof MEMBERSHIP_ROLES)[number] };
    case 'attendedWithinDays':
    case 'notAttendedWithinDays':
    case 'firstVisitWithinDays':
    case 'gaveWithinDays':
    case 'notGaveWithinDays':
    case 'createdWithinDays':
      return { field, op: 'lt', value: c.int(value, 1, MAX_DAYS) };
    default:
      return checkText(field, raw.operator as TextOp, value, c);
  }
}

/**
 * Validates the criteria (400s) and the caller's right to use them (403s): giving conditions need
 * finance:read, attendance conditions attendance:read, membership conditions (memberOf, notMemberOf,
 * role) groups:read ("a search never reveals what the caller may not read"). `path` is where the criteria sit in the request body (`body` or `body/criteria`).
 */
export function checkCriteria(criteria: Criteria, auth: Principal, path = 'body'): CheckedCriteria {
  const conditions = criteria.conditions.map((raw, i) => checkOne(raw, `${path}/conditions/${i}`));
  assertMayEvaluate(conditions, auth);
  return { match: criteria.match ?? 'all', conditions, sort: criteria.sort ?? 'lastName' };
}

/** 403 when the conditions read giving, attendance or memberships the caller may not read. */
export function assertMayEvaluate(conditions: CheckedCondition[], auth: Principal): void {
  const group = conditions.find((c) => GROUP_FIELDS.includes(c.field));
  if (group && !auth.permissions.has('groups:read')) throw new ForbiddenError(`The ${group.field} condition requires the groups:read permission`);
  const giving = conditions.find((c) => GIVING_FIELDS.includes(c.field));
  if (giving && !auth.permissions.has('finance:read')) throw new ForbiddenError(`The ${giving.field} condition requires the finance:read permission`);
  const attendance = conditions.find((c) => ATTENDANCE_FIELDS.includes(c.field));
  if (attendance && !auth.permissions.has('attendance:read')) {
    throw new ForbiddenError(`The ${attendance.field} condition requires the attendance:read permission`);
  }
}

/** Whether the caller may evaluate stored criteria (a shared list saved by someone else). */
export function mayEvaluate(conditions: CheckedCondition[], auth: Principal): boolean {
  try {
    assertMayEvaluate(conditions, auth);
    return true;
  } catch {
    return false;
  }
}
