import PDFDocument from 'pdfkit';
import { formatMoney } from '../../lib/money.js';
import type { Statement } from './finance.schemas.js';

/**
 * A giving statement a donor can file: the church, the donor's name and address, every gift in the
 * period, totals by fund, the total and the tax-deductible part. Uncompressed content streams
 * (`compress: false`): a one-page statement stays small, bulk ZIPs deflate it anyway, and the text
 * stays searchable by tools and tests.
 */
export function renderStatementPdf(s: Statement): Promise<Buffer> {
  const doc = new PDFDocument({ size: 'A4', margin: 50, compress: false, info: { Title: `Giving statement ${s.period.from} to ${s.period.to}`, Author: s.tenant.name } });
  const chunks: Buffer[] = [];
  const done = new Promise<Buffer>((resolve, reject) => {
    doc.on('data', (chunk: Buffer) => chunks.push(chunk));
    doc.on('end', () => resolve(Buffer.concat(chunks)));
    doc.on('error', reject);
  });
  const money = (n: number) => formatMoney(n, s.currency);
  const left = doc.page.margins.left;
  const width = doc.page.width - left - doc.page.margins.right;

  doc.font('Helvetica-Bold').fontSize(18).text(s.tenant.name);
  doc.font('Helvetica').fontSize(12).text(`Giving statement: ${s.period.from} to ${s.period.to}`);
  doc.moveDown();
  const name = [s.contact.firstName, s.contact.lastName].filter(Boolean).join(' ');
  doc.font('Helvetica-Bold').text(name);
  doc.font('Helvetica');
  const a = s.contact.address;
  if (a) for (const part of [a.street, a.city, a.country]) if (part) doc.text(part);
  doc.moveDown();

  const cols = [left, left + 80, left + 230, left + 320];
  const amountX = left + width - 110;
  const widthOf = (i: number) => (cols[i + 1] ?? amountX) - cols[i] - 6;
  /**
   * One table row: long cells wrap inside their column and the row takes the height of the tallest.
   * A cell that fits on one line (nearly all) is measured by its width and drawn without the line
   * wrapper, which would lay it out twice (height, then text): most of a statement's cost.
   */
  const row = (cells: string[], amount: string, bold = false) => {
    doc.font(bold ? 'Helvetica-Bold' : 'Helvetica').fontSize(10);
    const lineHeight = doc.currentLineHeight();
    const fits = cells.map((cell, i) => doc.widthOfString(cell) <= widthOf(i));
    const amountWidth = doc.widthOfString(amount);
    const height = Math.max(lineHeight, ...cells.map((cell, i) => (fits[i] ? lineHeight : doc.heightOfString(cell, { width: widthOf(i) }))));
    if (doc.y + height > doc.page.height - doc.page.margins.bottom) doc.addPage();
    const y = doc.y;
    cells.forEach((cell, i) => {
      if (cell === '') return;
      if (fits[i]) doc.text(cell, cols[i], y, { lineBreak: false });
      else doc.text(cell, cols[i], y, { width: widthOf(i) });
    });
    if (amountWidth <= 110) doc.text(amount, amountX + 110 - amountWidth, y, { lineBreak: false });
    else doc.text(amount, amountX, y, { width: 110, align: 'right' });
    doc.x = left;
    doc.y = y + height + 3;
  };
  row(['Date', 'Fund', 'Method', 'Reference'], 'Amount', true);
  doc.moveTo(left, doc.y - 1).lineTo(left + width, doc.y - 1).stroke();
  doc.y += 3;
  if (s.lines.length === 0) doc.font('Helvetica').fontSize(10).text('No gifts in this period.', left);
  for (const l of s.lines) row([l.date, l.fund.name, l.method, l.reference ?? ''], money(l.amount));
  doc.moveDown();
  doc.font('Helvetica-Bold').fontSize(11).text('Totals by fund', left);
  for (const f of s.totals.byFund) row(['', f.fund.name, '', ''], money(f.amount));
  doc.moveDown(0.5);
  row(['Total', '', '', ''], money(s.totals.total), true);
  row(['Tax-deductible', '', '', ''], money(s.totals.deductible), true);
  doc.moveDown(2);
  doc.font('Helvetica').fontSize(9).text(`Amounts are net of refunds. ${s.tenant.name} thanks you for your generosity.`, left, doc.y, { width });
  doc.end();
  return done;
}
