import { BadRequestError } from '../../lib/errors.js';

/** The merge fields of messages and templates (modules-contract §6). */
export const MERGE_FIELDS = ['firstName', 'lastName', 'churchName'] as const;
export type MergeValues = Record<(typeof MERGE_FIELDS)[number], string>;

const FIELD = /\{\{\s*([^{}]*?)\s*\}\}/g;

/** 400 naming the first `{{field}}` that is not a merge field. */
export function assertMergeFields(text: string, where: string): void {
  for (const match of text.matchAll(FIELD)) {
    if (!(MERGE_FIELDS as readonly string[]).includes(match[1])) {
      throw new BadRequestError(`${where} has an unknown merge field {{${match[1]}}} (known: ${MERGE_FIELDS.map((f) => `{{${f}}}`).join(', ')})`);
    }
  }
}

export function renderMergeFields(text: string, values: MergeValues): string {
  return text.replace(FIELD, (whole, name: string) => ((MERGE_FIELDS as readonly string[]).includes(name) ? values[name as keyof MergeValues] : whole));
}
