import { describe, expect, it } from 'vitest';
import type { Statement } from '../../src/modules/finance/finance.schemas.js';
import { renderStatementPdf } from '../../src/modules/finance/statement.pdf.js';
import { pdfText } from '../helpers/finance.factories.js';

/**
 * The statement PDF with the process-wide fonts (metrics parsed once, each string measured and
 * encoded once) against pdfkit's own per-document fonts: the same bytes, but for the creation date
 * and the document id derived from it.
 */
function statement(lines: number, long = false): Statement {
  const longName = 'A fund with an extraordinarily long name that has to wrap inside its column';
  return {
    tenant: long
      ? { name: 'Grace Community Church', address: '12 Church Road\nKampala', taxNumber: 'UG-123456', statementClosing: 'No goods or services were provided in exchange for these contributions.', paperSize: 'Letter' }
      : { name: 'Grace Community Church', address: null, taxNumber: null, statementClosing: null, paperSize: 'A4' },
    contact: { id: 7, firstName: 'Dora', lastName: long ? 'Donor-with-a-long-double-barrelled-surname' : 'Donor', address: { street: '1 Church Lane', city: 'Kampala', country: 'UG' } },
    period: { from: '2025-01-01', to: '2025-12-31' },
    currency: 'USD',
    lines: Array.from({ length: lines }, (_, i) => ({
      contributionId: i + 1,
      date: `2025-${String(1 + (i % 12)).padStart(2, '0')}-${String(1 + (i % 28)).padStart(2, '0')}`,
      fund: { id: 1 + (i % 2), name: long && i % 2 ? longName : 'General Fund' },
      amount: 2500 + i * 37,
      method: (['Cash', 'Check', 'Card'] as const)[i % 3],
      reference: long && i % 3 === 0 ? 'A long reference text that must wrap inside its column too' : i % 4 ? null : `R-${i}`,
      isTaxDeductible: i % 2 === 0,
    })),
    totals: { total: 123456, deductible: 100000, byFund: [{ fund: { id: 1, name: 'General Fund' }, amount: 100000 }, { fund: { id: 2, name: long ? longName : 'Missions' }, amount: 23456 }] },
  };
}

/** The PDF without its creation date and the id pdfkit derives from it. */
const stable = (pdf: Buffer) => pdf.toString('latin1').replace(/\(D:\d{14}Z\)/g, '').replace(/\/ID \[<[0-9a-f]+> <[0-9a-f]+>\]/, '');

describe('statement PDF with shared fonts', () => {
  it('is byte for byte what pdfkit renders with its own fonts: empty, one page, wrapped cells, several pages', async () => {
    for (const s of [statement(0), statement(1), statement(52), statement(60, true), statement(200)]) {
      // Twice each: the first render fills the shared fonts' memos, the second reads them.
      for (let i = 0; i < 2; i++) {
        const own = await renderStatementPdf(s, { sharedFonts: false });
        const shared = await renderStatementPdf(s);
        expect(stable(shared)).toBe(stable(own));
      }
    }
    const text = pdfText(await renderStatementPdf(statement(200)));
    expect(text).toContain('Dora Donor');
    expect(text).toContain('USD 1,234.56');
  });

  it('keeps documents rendered at the same time apart (fonts, pages)', async () => {
    const [a, b] = await Promise.all([renderStatementPdf(statement(52)), renderStatementPdf(statement(60, true))]);
    expect(stable(a)).toBe(stable(await renderStatementPdf(statement(52), { sharedFonts: false })));
    expect(stable(b)).toBe(stable(await renderStatementPdf(statement(60, true), { sharedFonts: false })));
  });
});
