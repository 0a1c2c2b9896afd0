import { useMemo } from 'react';
import { useSignedIn } from '../../shared';

/**
 * Amounts typed in the currency's major unit ("25", "25.5", "1,234.50") as integers of its minor
 * unit, without floating point; undefined when it is not an amount.
 */
export function useAmountParser() {
  const { tenant } = useSignedIn();
  return useMemo(() => {
    const digits = new Intl.NumberFormat('en', { style: 'currency', currency: tenant.currency }).resolvedOptions().maximumFractionDigits ?? 2;
    const parse = (text: string): number | undefined => {
      const clean = text.replace(/[\s,]/g, '');
      const match = new RegExp(`^(\\d{1,13})(?:\\.(\\d{0,${digits}}))?$`).exec(clean);
      if (!match || (digits === 0 && clean.includes('.'))) return undefined;
      const minor = Number(match[1]) * 10 ** digits + Number((match[2] ?? '').padEnd(digits, '0') || 0);
      return minor > 0 ? minor : undefined;
    };
    /** An amount in minor units as typed text ("25.50"). */
    const text = (minor: number) => (digits === 0 ? String(minor) : `${Math.floor(minor / 10 ** digits)}.${String(minor % 10 ** digits).padStart(digits, '0')}`);
    return { parse, text, digits };
  }, [tenant.currency]);
}
