import { Type } from 'typebox';
import { minorUnitDigits } from './periods.js';

/**
 * Money (modules-contract §0): an integer number of the currency's minor unit, 1 to 10^12, with the
 * tenant's `currency` beside it on the wire. Sums are computed in SQL (bigint/numeric) and come back
 * as JSON integers; never a JavaScript float in a total.
 */

export const MAX_AMOUNT = 1_000_000_000_000;

/** A positive amount in minor units (`12550` is 125.50 USD). */
export const Amount = Type.Integer({ minimum: 1, maximum: MAX_AMOUNT, description: 'Integer number of minor units of the tenant currency (1 to 10^12)' });
/** An amount that may be zero (control totals, thresholds). */
export const AmountOrZero = Type.Integer({ minimum: 0, maximum: MAX_AMOUNT, description: 'Integer number of minor units (0 to 10^12)' });
/** A computed total (a sum may exceed 10^12). */
export const Total = Type.Integer({ description: 'Integer number of minor units of the tenant currency' });
export const Currency = Type.String({ description: 'ISO 4217 code of the tenant currency' });

export function isAmount(value: unknown): value is number {
  return typeof value === 'number' && Number.isSafeInteger(value) && value >= 1 && value <= MAX_AMOUNT;
}

/**
 * A driver's bigint/numeric value (a string on pg, a number or bigint on PGlite) as a safe integer;
 * throws rather than round.
 */
export function toMinor(value: unknown): number {
  if (value === null || value === undefined) return 0;
  const n = typeof value === 'bigint' ? Number(value) : Number(value);
  if (!Number.isSafeInteger(n)) throw new Error(`Not an integer amount: ${String(value)}`);
  return n;
}

/**
 * `123456` USD → `"USD 1,234.56"`; UGX (no minor unit) `50000` → `"UGX 50,000"`. Integer string
 * arithmetic only, so no binary rounding ever shows on a donor's statement.
 */
export function formatMoney(amount: number, currency: string): string {
  const digits = minorUnitDigits(currency);
  const negative = amount < 0;
  const s = BigInt(Math.abs(amount)).toString().padStart(digits + 1, '0');
  const whole = s.slice(0, s.length - digits).replace(/\B(?=(\d{3})+(?!\d))/g, ',');
  const fraction = digits > 0 ? `.${s.slice(s.length - digits)}` : '';
  return `${negative ? '-' : ''}${currency} ${whole}${fraction}`;
}
