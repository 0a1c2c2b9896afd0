import { useMemo } from 'react';
import { useSignedIn } from './session/session';

/**
 * Numbers, money and dates with Intl in the church's currency and time zone (console.md): amounts
 * arrive as integers in the currency's minor unit, instants as ISO strings, calendar dates as
 * YYYY-MM-DD (shown as that day, whatever the device's zone).
 */
export function useFormat() {
  const { tenant } = useSignedIn();
  return useMemo(() => {
    const money = new Intl.NumberFormat(undefined, { style: 'currency', currency: tenant.currency });
    const minorDigits = money.resolvedOptions().maximumFractionDigits ?? 2;
    const number = new Intl.NumberFormat();
    const date = new Intl.DateTimeFormat(undefined, { dateStyle: 'medium', timeZone: 'UTC' });
    const dateTime = new Intl.DateTimeFormat(undefined, { dateStyle: 'medium', timeStyle: 'short', timeZone: tenant.timeZone });
    return {
      money: (minor: number) => money.format(minor / 10 ** minorDigits),
      /** An amount in the currency's major unit (for charts' axes). */
      major: (minor: number) => minor / 10 ** minorDigits,
      moneyMajor: (major: number) => money.format(major),
      number: (n: number) => number.format(n),
      /** A calendar date (YYYY-MM-DD). */
      date: (day: string) => date.format(new Date(`${day.slice(0, 10)}T00:00:00Z`)),
      /** An instant, in the church's time zone. */
      dateTime: (iso: string) => dateTime.format(new Date(iso)),
      percent: (pct: number) => `${pct > 0 ? '+' : ''}${Math.round(pct)}%`,
    };
  }, [tenant.currency, tenant.timeZone]);
}
