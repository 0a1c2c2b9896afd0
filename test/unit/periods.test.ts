import { describe, expect, it } from 'vitest';
import { addDays, addMonths, dateIn, daysBetween, defaultWindow, isCurrency, isTimeZone, minorUnitDigits, periodStart, periodStarts } from '../../src/lib/periods.js';

describe('periods in a tenant time zone', () => {
  it('today depends on the zone, not the server', () => {
    const instant = new Date('2026-03-07T20:30:00Z'); // Saturday evening in UTC
    expect(dateIn('UTC', instant)).toBe('2026-03-07');
    expect(dateIn('Pacific/Auckland', instant)).toBe('2026-03-08'); // already Sunday morning
    expect(dateIn('America/Los_Angeles', instant)).toBe('2026-03-07');
  });

  it('weeks start on Sunday; months on the 1st', () => {
    expect(periodStart('2026-03-07', 'week')).toBe('2026-03-01'); // Saturday → the Sunday before
    expect(periodStart('2026-03-08', 'week')).toBe('2026-03-08'); // Sunday is its own start
    expect(periodStart('2026-03-31', 'month')).toBe('2026-03-01');
  });

  it('lists every period of a window, across month and year ends', () => {
    expect(periodStarts('2025-12-25', '2026-01-10', 'week')).toEqual(['2025-12-21', '2025-12-28', '2026-01-04']);
    expect(periodStarts('2025-11-15', '2026-02-01', 'month')).toEqual(['2025-11-01', '2025-12-01', '2026-01-01', '2026-02-01']);
    expect(defaultWindow('2026-03-11', 'week', 12)).toEqual({ from: '2025-12-21', to: '2026-03-11' });
  });

  it('date arithmetic ignores daylight saving', () => {
    expect(addDays('2026-03-28', 2)).toBe('2026-03-30');
    expect(addMonths('2026-01-31', 1)).toBe('2026-02-01');
    expect(daysBetween('2026-01-01', '2026-12-31')).toBe(364);
  });

  it('validates zones and currencies', () => {
    expect(isTimeZone('Africa/Kampala')).toBe(true);
    expect(isTimeZone('Mars/Olympus')).toBe(false);
    expect(isCurrency('ugx')).toBe(true);
    expect(isCurrency('XYZ')).toBe(false);
    expect([minorUnitDigits('USD'), minorUnitDigits('UGX'), minorUnitDigits('KWD')]).toEqual([2, 0, 3]);
  });
});
