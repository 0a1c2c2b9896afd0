import { containsPattern } from '../../lib/like.js';

/**
 * The search box's text rule, on the JavaScript side. The normalisation itself (lower case, Latin
 * accents dropped) is the SQL function search_fold (migration 0011), applied to both the column and
 * the pattern, so nothing here has to agree with the database on what an accent is.
 */

/** Same rule as the contacts list's `q` (api-contract §5): digits, spaces, + - . ( ) only, and at least 3 digits. */
const PHONE_SHAPED = /^[0-9\s+\-.()]+$/;

export interface TextMatch {
  /** A LIKE pattern: `%fragment%`, with `%`, `_` and `\` of the fragment escaped. */
  pattern: string;
  /** `%digits%` for a phone-shaped fragment, else null. */
  digits: string | null;
}

export function textMatch(q: string): TextMatch {
  const fragment = q.trim();
  const digits = fragment.replace(/\D/g, '');
  return { pattern: containsPattern(fragment), digits: PHONE_SHAPED.test(fragment) && digits.length >= 3 ? `%${digits}%` : null };
}

/** `fragment%` with the LIKE metacharacters escaped. */
export function prefixPattern(fragment: string): string {
  return `${fragment.replace(/[\\%_]/g, (c) => `\\${c}`)}%`;
}
