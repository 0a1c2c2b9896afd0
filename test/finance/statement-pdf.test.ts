import PDFDocument from 'pdfkit';
import { describe, expect, it } from 'vitest';
import type { Statement } from '../../src/modules/finance/finance.schemas.js';
import { renderStatementPdf } from '../../src/modules/finance/statement.pdf.js';
import { pdfText } from '../helpers/finance.factories.js';

/**
 * The statement PDF with its shortcuts (process-wide fonts, batched writes, one-line texts drawn
 * without pdfkit's line wrapper, each table row as one text) against pdfkit alone (its own fonts,
 * writes and wrapper, a text per cell): the same bytes without the rows shortcut, and with it
 * every glyph of the same text at the same place.
 */
function statement(lines: number, long = false): Statement {
  const longName = 'A fund with an extraordinarily long name that has to wrap inside its column';
  return {
    tenant: { name: 'Grace Community Church' },
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

/**
 * Every glyph but spaces, in drawing order, with where it lands: each `BT … ET` of pdfkit's content
 * streams is `x y Tm`, `/Fn size Tf` and a TJ array, whose strings advance by the glyphs' widths
 * (the standard fonts' metrics, measured by pdfkit at size 1000) and whose numbers move back by
 * thousandths of the size.
 */
function glyphs(pdf: Buffer): string[] {
  const raw = pdf.toString('latin1');
  const baseFont = new Map<string, string>();
  for (const m of raw.matchAll(/(\d+) 0 obj\n<<\n\/Type \/Font\n\/BaseFont \/(\S+)/g)) baseFont.set(m[1], m[2]);
  const fontOf = new Map<string, string>();
  for (const m of raw.matchAll(/\/(F\d+) (\d+) 0 R/g)) fontOf.set(m[1], baseFont.get(m[2])!);
  const measure = new PDFDocument({ autoFirstPage: false });
  const widths = new Map<string, number>();
  const widthOf = (font: string, char: string) => {
    const key = `${font} ${char}`;
    if (!widths.has(key)) widths.set(key, measure.font(font).fontSize(1000).widthOfString(char));
    return widths.get(key)!;
  };
  const out: string[] = [];
  for (const m of raw.matchAll(/BT\n1 0 0 1 (\S+) (\S+) Tm\n\/(F\d+) (\S+) Tf\n\[(.*)\] TJ\nET/g)) {
    let x = Number(m[1]);
    const [y, font, size] = [m[2], fontOf.get(m[3])!, Number(m[4])];
    expect(font).toMatch(/^Helvetica/);
    for (const item of m[5].matchAll(/<([0-9a-f]*)>|(-?[\d.]+)/g)) {
      if (item[2] !== undefined) {
        x -= (Number(item[2]) * size) / 1000;
        continue;
      }
      for (const char of Buffer.from(item[1], 'hex').toString('latin1')) {
        if (char !== ' ') out.push(`${char} ${x.toFixed(3)} ${y} ${font} ${size}`);
        x += (widthOf(font, char) * size) / 1000;
      }
    }
  }
  return out;
}

const statements = [statement(0), statement(1), statement(52), statement(60, true), statement(200)];

describe('statement PDF shortcuts', () => {
  it('fonts, writes and one-line texts: byte for byte what pdfkit renders alone: empty, one page, wrapped cells, several pages', async () => {
    for (const s of statements) {
      // Twice each: the first render fills the shared fonts' memos, the second reads them.
      for (let i = 0; i < 2; i++) {
        const alone = await renderStatementPdf(s, { shortcuts: false });
        const shortcuts = await renderStatementPdf(s, { rowsAsOneText: false });
        expect(stable(shortcuts)).toBe(stable(alone));
      }
    }
  });

  it('rows as one text: every glyph where pdfkit alone puts it, the cells read apart', async () => {
    for (const s of statements) {
      const alone = await renderStatementPdf(s, { shortcuts: false });
      const rows = await renderStatementPdf(s);
      const placed = glyphs(rows);
      expect(placed.length).toBeGreaterThan(100);
      expect(placed).toEqual(glyphs(alone));
      // Fewer texts: a row of cells is one text instead of one per cell (rows with a wrapped cell keep one per cell).
      const wraps = s.lines.some((l) => l.fund.name.length > 30);
      if (s.lines.length > 1 && !wraps) expect(rows.toString('latin1').split(' TJ').length).toBeLessThan(alone.toString('latin1').split(' TJ').length / 2);
    }
    const text = pdfText(await renderStatementPdf(statement(200)));
    expect(text).toContain('Dora Donor');
    expect(text).toContain('USD 1,234.56');
    const [first] = statement(1).lines;
    expect(text).toContain(`${first.date} ${first.fund.name} ${first.method} R-0 USD 25.00`);
  });

  it('keeps documents rendered at the same time apart (fonts, pages)', async () => {
    const [a, b] = await Promise.all([renderStatementPdf(statement(52)), renderStatementPdf(statement(60, true))]);
    expect(stable(a)).toBe(stable(await renderStatementPdf(statement(52))));
    expect(stable(b)).toBe(stable(await renderStatementPdf(statement(60, true))));
    expect(glyphs(b)).toEqual(glyphs(await renderStatementPdf(statement(60, true), { shortcuts: false })));
  });

  it('a cell with a tab or a line break is drawn on its own, as pdfkit draws it', async () => {
    const s = statement(3);
    s.lines[1] = { ...s.lines[1], reference: 'A\tB' };
    s.lines[2] = { ...s.lines[2], fund: { id: 9, name: 'Two\nlines' } };
    expect(glyphs(await renderStatementPdf(s))).toEqual(glyphs(await renderStatementPdf(s, { shortcuts: false })));
  });
});
