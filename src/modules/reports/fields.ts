import type { ReportField } from '../../db/schema/reports.js';
import { BadRequestError } from '../../lib/errors.js';
import type { Static } from 'typebox';
import type { ReportFieldSchema } from './templates.schemas.js';

/** Template fields as stored: trimmed, keys unique, `options` only (and always) on select fields. */
export function normalizeFields(fields: Static<typeof ReportFieldSchema>[]): ReportField[] {
  const seen = new Set<string>();
  return fields.map((f, i) => {
    if (seen.has(f.key)) throw new BadRequestError(`body/fields/${i}/key ${f.key} is used by another field`);
    seen.add(f.key);
    const options = f.options ?? null;
    if (f.type === 'select') {
      if (!options || options.length === 0) throw new BadRequestError(`body/fields/${i}/options must list the choices of select field ${f.key}`);
      if (new Set(options).size !== options.length) throw new BadRequestError(`body/fields/${i}/options must not repeat a choice`);
    }
    return { key: f.key, label: f.label.trim(), type: f.type, required: f.required ?? false, options: f.type === 'select' ? options : null };
  });
}

const DATE = /^(?!0000)\d{4}-\d{2}-\d{2}$/;

function isCalendarDate(s: string): boolean {
  if (!DATE.test(s)) return false;
  const d = new Date(`${s}T00:00:00Z`);
  return !Number.isNaN(d.getTime()) && d.toISOString().slice(0, 10) === s;
}

/**
 * Values checked against the template's fields: unknown keys, missing required fields and wrong
 * types are 400 naming the key. Returns the values to store (nulls and absent optional fields left out).
 */
export function validateValues(fields: ReportField[], values: Record<string, unknown>): Record<string, unknown> {
  const byKey = new Map(fields.map((f) => [f.key, f]));
  for (const key of Object.keys(values)) {
    if (!byKey.has(key)) throw new BadRequestError(`body/values/${key} is not a field of this template`);
  }
  const out: Record<string, unknown> = {};
  for (const f of fields) {
    const v = values[f.key];
    const where = `body/values/${f.key}`;
    if (v === undefined || v === null || (typeof v === 'string' && v.trim() === '')) {
      if (f.required) throw new BadRequestError(`${where} is required`);
      continue;
    }
    switch (f.type) {
      case 'number':
        if (typeof v !== 'number' || !Number.isFinite(v)) throw new BadRequestError(`${where} must be a number`);
        if (Math.abs(v) > 1e12) throw new BadRequestError(`${where} must be between -1000000000000 and 1000000000000`);
        break;
      case 'boolean':
        if (typeof v !== 'boolean') throw new BadRequestError(`${where} must be a boolean`);
        break;
      case 'date':
        if (typeof v !== 'string' || !isCalendarDate(v)) throw new BadRequestError(`${where} must be a date YYYY-MM-DD`);
        break;
      case 'text':
        if (typeof v !== 'string') throw new BadRequestError(`${where} must be a string`);
        if (v.length > 5000) throw new BadRequestError(`${where} must be at most 5000 characters`);
        if (v.includes('\u0000')) throw new BadRequestError(`${where} must not contain NUL characters`);
        break;
      case 'select':
        if (typeof v !== 'string' || !(f.options ?? []).includes(v)) throw new BadRequestError(`${where} must be one of ${(f.options ?? []).join(', ')}`);
        break;
    }
    out[f.key] = typeof v === 'string' && f.type === 'text' ? v.trim() : v;
  }
  return out;
}
