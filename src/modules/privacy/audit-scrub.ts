import type { FieldChanges } from '../../changes/recorder.js';

/** What an erased value becomes in the audit: the change and its keys stay, the value does not. */
export const ERASED_VALUE = '[erased]';

/**
 * Keys whose values say what happened, not who it happened to: ids, types, statuses, roles, flags,
 * instants, money. Everything else (names, emails, phones, addresses, dates of birth, notes,
 * descriptions, free text of any kind) is erased. An allow-list: a field a module adds later is
 * erased unless it is one of these shapes.
 */
const SAFE_KEY =
  /^(id|type|entityType|status|category|role|privacy|isActive|isPrimary|activityType|reason|currency|amount|kind|method|level|count|score|position)$|Ids?$|At$|^(is|has)[A-Z]/;

export function isSafeKey(key: string): boolean {
  return SAFE_KEY.test(key);
}

function scrub(value: unknown, key: string): unknown {
  if (value === null || value === undefined) return null;
  if (Array.isArray(value)) return value.map((v) => scrub(v, key));
  if (typeof value === 'object') return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, scrub(v, k)]));
  return isSafeKey(key) ? value : ERASED_VALUE;
}

/** `{field: {from, to}}` with each side scrubbed under its field's name. */
export function scrubFieldChanges(changes: FieldChanges | null): FieldChanges | null {
  if (!changes) return null;
  const out: FieldChanges = {};
  for (const [field, diff] of Object.entries(changes)) {
    out[field] = diff && typeof diff === 'object' && 'from' in diff && 'to' in diff
      ? { from: scrub(diff.from, field), to: scrub(diff.to, field) }
      : (scrub(diff, field) as { from: unknown; to: unknown });
  }
  return out;
}

export function scrubData(data: Record<string, unknown>): Record<string, unknown> {
  return scrub(data ?? {}, '') as Record<string, unknown>;
}
