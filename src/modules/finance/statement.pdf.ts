import PDFDocument from 'pdfkit';
import { formatMoney } from '../../lib/money.js';
import type { HouseholdStatement, Statement } from './finance.schemas.js';

type Doc = InstanceType<typeof PDFDocument>;

/** The slice of pdfkit's StandardFont (0.20) that sharing touches. */
interface StandardFont {
  document: Doc;
  id: string;
  dictionary: unknown;
  embedded?: boolean;
  widthOfString(text: string, size: number): number;
  encode(text: string): [string[], unknown[]];
}

/** pdfkit's per-document font registry (private; touched only by `newDocument`). */
interface FontRegistry {
  _font: StandardFont | null;
  _fontFamilies?: Record<string, StandardFont>;
  _fontCount?: number;
}

const FONTS = ['Helvetica', 'Helvetica-Bold'] as const;

/**
 * A memo by string, forgotten all at once past `limit` characters of keys (an encoding holds some
 * 100 bytes per character: a few MB at most). A statement brings a few hundred distinct strings
 * (dates, amounts, fund names), mostly the same from one donor to the next.
 */
function memoByText<T>(compute: (text: string) => T, limit = 50_000): (text: string) => T {
  const cache = new Map<string, T>();
  let chars = 0;
  return (text) => {
    let value = cache.get(text);
    if (value === undefined) {
      value = compute(text);
      if (chars + text.length > limit) {
        cache.clear();
        chars = 0;
      }
      cache.set(text, value);
      chars += text.length;
    }
    return value;
  };
}

/**
 * A standard font parsed once per process, measuring and encoding each distinct string once.
 * pdfkit builds a standard font's metrics (glyph widths and some 2,700 kerning pairs in a
 * string-keyed object) for every document that selects it, and measures a string glyph by glyph
 * with a string key per kerning lookup; a table cell is measured three or four times (fit, place,
 * advance) and encoded once. Those were two thirds of a statement's CPU. The metrics are read-only
 * and both results pure functions of the string (pdfkit only reads them), so one copy serves every
 * document; `widthOfString` keeps pdfkit's arithmetic (the sum of advances, times size / 1000).
 */
function sharedFont(name: string): StandardFont {
  const probe = new PDFDocument({ autoFirstPage: false }).font(name) as unknown as FontRegistry;
  const font = probe._font!;
  const measure = font.widthOfString.bind(font);
  const width = memoByText((text) => measure(text, 1000));
  font.widthOfString = (text, size) => width(text) * (size / 1000);
  font.encode = memoByText(font.encode.bind(font));
  return font;
}

let shared: Map<string, StandardFont> | undefined;

/**
 * A new document using the process-wide fonts (sharedFont): per document only what pdfkit keeps
 * per document (the font's id on the page, its dictionary object, whether it is written out).
 * Without `sharedFonts`, or with a pdfkit lacking the registry this relies on, the document loads
 * its own fonts as pdfkit does by itself: the output is the same, byte for byte.
 */
function newDocument(options: ConstructorParameters<typeof PDFDocument>[0], sharedFonts: boolean): { doc: Doc; output?: () => Buffer } {
  if (!sharedFonts) return { doc: new PDFDocument(options) };
  // The first page is added once the writes are batched (pdfkit adds it as the constructor's last step).
  const doc = new PDFDocument({ ...options, font: null as unknown as string, autoFirstPage: false });
  const registry = doc as unknown as FontRegistry;
  if (typeof registry._fontFamilies === 'object' && typeof registry._fontCount === 'number') {
    shared ??= new Map(FONTS.map((name) => [name, sharedFont(name)]));
    for (const [name, font] of shared) {
      const own: StandardFont = Object.create(font);
      Object.assign(own, { document: doc, id: `F${++registry._fontCount}`, dictionary: null, embedded: false });
      registry._fontFamilies[name] = own;
    }
  }
  doc.font('Helvetica');
  const output = batchWrites(doc);
  doc.addPage();
  return { doc, output };
}

/** pdfkit's writer and object references (private; touched only by `batchWrites`). */
interface Writer {
  _write?: (data: string | Uint8Array) => void;
  _offset: number;
  ref?: (data?: unknown) => Reference;
}
interface Reference {
  write(chunk: string | Uint8Array): void;
  finalize(): void;
}

/**
 * pdfkit turns every line it writes (an operator of a page's content, a line of an object) into a
 * Uint8Array of its own, char by char, and pushes each through the document's stream: hundreds of
 * small arrays and stream events per statement, which cost more than laying the text out. Here the
 * lines are kept as text and turned into bytes once: the document's lines at the end, an object's
 * stream lines when it is written; the bytes are the same (pdfkit keeps each char's low byte, as
 * latin1 does). Returns the whole file once the document has ended, or undefined with a pdfkit
 * lacking the internals this relies on (the document then writes as pdfkit does by itself).
 */
function batchWrites(doc: Doc): (() => Buffer) | undefined {
  const writer = doc as unknown as Writer;
  const { _write: write, ref } = writer;
  if (typeof write !== 'function' || typeof ref !== 'function' || typeof writer._offset !== 'number') return undefined;
  const out: Buffer[] = [];
  let text: string[] = [];
  const flush = () => {
    if (text.length) out.push(Buffer.from(text.join(''), 'latin1'));
    text = [];
  };
  writer._write = (data) => {
    if (data instanceof Uint8Array) {
      flush();
      out.push(Buffer.from(data.buffer, data.byteOffset, data.byteLength));
      writer._offset += data.byteLength;
    } else {
      const line = `${data}\n`;
      text.push(line);
      writer._offset += line.length;
    }
  };
  writer.ref = (data) => {
    const reference = ref.call(doc, data);
    const { write: writeChunk, finalize } = reference;
    let lines: string[] = [];
    const flushLines = () => {
      if (lines.length) writeChunk.call(reference, Buffer.from(lines.join(''), 'latin1'));
      lines = [];
    };
    reference.write = (chunk) => {
      if (chunk instanceof Uint8Array) {
        flushLines();
        writeChunk.call(reference, chunk);
      } else lines.push(`${chunk}\n`);
    };
    reference.finalize = () => {
      flushLines();
      finalize.call(reference);
    };
    return reference;
  };
  return () => {
    flush();
    return Buffer.concat(out);
  };
}

/**
 * A giving statement a donor can file: the church (its address and registration or tax number when
 * set), the donor's name and address, every gift in the
 * period, totals by fund, the total and the tax-deductible part. A household's statement is addressed
 * to the household's name and address and names each gift's giver in a column of its own. The
 * church's closing sentence (when set) ends it; the page is the church's paper size (A4 or Letter).
 * Uncompressed content streams (`compress: false`): a one-page statement stays small, bulk ZIPs
 * deflate it anyway, and the text stays searchable by tools and tests. `sharedFonts: false` renders
 * with pdfkit's own per-document fonts (what the tests compare the shared ones with).
 */
export function renderStatementPdf(s: Statement | HouseholdStatement, { sharedFonts = true }: { sharedFonts?: boolean } = {}): Promise<Buffer> {
  const info = { Title: `Giving statement ${s.period.from} to ${s.period.to}`, Author: s.tenant.name };
  const size = s.tenant.paperSize === 'Letter' ? 'LETTER' : 'A4';
  const { doc, output } = newDocument({ size, margin: 50, compress: false, info }, sharedFonts);
  const chunks: Buffer[] = [];
  const done = new Promise<Buffer>((resolve, reject) => {
    doc.on('data', (chunk: Buffer) => chunks.push(chunk));
    doc.on('end', () => resolve(output ? Buffer.concat([...chunks, output()]) : Buffer.concat(chunks)));
    doc.on('error', reject);
  });
  const money = (n: number) => formatMoney(n, s.currency);
  const left = doc.page.margins.left;
  const width = doc.page.width - left - doc.page.margins.right;
  const household = 'household' in s;

  doc.font('Helvetica-Bold').fontSize(18).text(s.tenant.name);
  // The church's address (its lines as entered) and registration or tax number, when set.
  const church = [...(s.tenant.address ?? '').split(/\r?\n/), ...(s.tenant.taxNumber ? [`Registration / tax number: ${s.tenant.taxNumber}`] : [])].map((l) => l.trim()).filter(Boolean);
  if (church.length) doc.font('Helvetica').fontSize(9).text(church.join('\n'), { width });
  doc.moveDown(0.5);
  doc.font('Helvetica').fontSize(12).text(`Giving statement: ${s.period.from} to ${s.period.to}`);
  doc.moveDown();
  const name = household ? s.household.name : [s.contact.firstName, s.contact.lastName].filter(Boolean).join(' ');
  doc.font('Helvetica-Bold').text(name);
  doc.font('Helvetica');
  const a = household ? s.household.address : s.contact.address;
  if (a) for (const part of [a.street, a.city, a.country]) if (part) doc.text(part);
  doc.moveDown();

  // Date, (Giver,) Fund, Method, Reference, then the amount on the right.
  const cols = household ? [left, left + 62, left + 170, left + 268, left + 335] : [left, left + 80, left + 230, left + 320];
  const fundCol = household ? 2 : 1;
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
  /** A row with `text` in the column `at` and the other cells empty. */
  const only = (at: number, text: string) => cols.map((_, i) => (i === at ? text : ''));
  row(household ? ['Date', 'Giver', 'Fund', 'Method', 'Reference'] : ['Date', 'Fund', 'Method', 'Reference'], 'Amount', true);
  doc.moveTo(left, doc.y - 1).lineTo(left + width, doc.y - 1).stroke();
  doc.y += 3;
  if (s.lines.length === 0) doc.font('Helvetica').fontSize(10).text('No gifts in this period.', left);
  if (household) {
    for (const l of s.lines) row([l.date, [l.giver.firstName, l.giver.lastName].filter(Boolean).join(' '), l.fund.name, l.method, l.reference ?? ''], money(l.amount));
  } else for (const l of s.lines) row([l.date, l.fund.name, l.method, l.reference ?? ''], money(l.amount));
  doc.moveDown();
  doc.font('Helvetica-Bold').fontSize(11).text('Totals by fund', left);
  for (const f of s.totals.byFund) row(only(fundCol, f.fund.name), money(f.amount));
  doc.moveDown(0.5);
  row(only(0, 'Total'), money(s.totals.total), true);
  row(only(0, 'Tax-deductible'), money(s.totals.deductible), true);
  doc.moveDown(2);
  doc.font('Helvetica').fontSize(9).text(`Amounts are net of refunds. ${s.tenant.name} thanks you for your generosity.`, left, doc.y, { width });
  if (s.tenant.statementClosing) doc.moveDown(0.5).font('Helvetica').fontSize(10).text(s.tenant.statementClosing, left, doc.y, { width });
  doc.end();
  return done;
}
