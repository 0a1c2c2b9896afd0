import PDFDocument from 'pdfkit';
import type { LabelRow } from './checkins.repository.js';

type Doc = InstanceType<typeof PDFDocument>;

/** 4 in × 2 in: the common size of thermal label printers (Dymo, Brother, Zebra), in points. */
export const LABEL_SIZE: [number, number] = [288, 144];
const M = 10;
const W = LABEL_SIZE[0] - 2 * M;

function where(l: Pick<LabelRow, 'serviceName' | 'room' | 'sessionDate'>): string {
  return [l.room, l.serviceName, l.sessionDate].filter(Boolean).join(' · ');
}

/** The code in a box at the top right; answers the box's left edge. */
function codeBox(doc: Doc, code: string): number {
  const bw = 92;
  const x = LABEL_SIZE[0] - M - bw;
  doc.lineWidth(1.5).rect(x, M, bw, 40).stroke();
  doc.font('Helvetica-Bold').fontSize(24).text(code, x, M + 9, { width: bw, align: 'center', lineBreak: false });
  return x;
}

/** The largest size from `max` down to `min` at which `text` fits on one line of `width` (the current font). */
function fitSize(doc: Doc, text: string, width: number, max: number, min: number): number {
  let size = max;
  while (size > min && doc.fontSize(size).widthOfString(text) > width) size -= 1;
  return size;
}

function childLabel(doc: Doc, l: LabelRow) {
  const left = codeBox(doc, l.securityCode) - 6 - M;
  doc.font('Helvetica-Bold');
  doc.fontSize(fitSize(doc, l.firstName, left, 20, 12)).text(l.firstName, M, M, { width: left, height: 24, ellipsis: true, lineBreak: false });
  doc.font('Helvetica').fontSize(11).text(l.lastName, M, M + 25, { width: left, height: 14, ellipsis: true, lineBreak: false });
  doc.font('Helvetica').fontSize(9).text(where(l), M, M + 46, { width: W, height: 12, ellipsis: true, lineBreak: false });
  if (l.checkinNote) {
    const top = M + 62;
    doc.rect(M, top, W, LABEL_SIZE[1] - M - top).fill('#000000');
    doc.fillColor('#ffffff').font('Helvetica-Bold').fontSize(8)
      .text(`NOTE: ${l.checkinNote}`, M + 4, top + 4, { width: W - 8, height: LABEL_SIZE[1] - M - top - 6, ellipsis: true });
    doc.fillColor('#000000');
  }
}

function parentStub(doc: Doc, code: string, children: LabelRow[]) {
  codeBox(doc, code);
  doc.font('Helvetica-Bold').fontSize(14).text('Parent pick-up', M, M + 2, { width: 170, lineBreak: false });
  doc.font('Helvetica').fontSize(8).text('Show this stub to collect:', M, M + 22, { width: 170, lineBreak: false });
  const names = children.map((c) => `${c.firstName} ${c.lastName}`.trim()).join(', ');
  doc.font('Helvetica-Bold').fontSize(11).text(names, M, M + 56, { width: W, height: 42, ellipsis: true });
  doc.font('Helvetica').fontSize(9).text(where({ ...children[0], room: null }), M, LABEL_SIZE[1] - M - 12, { width: W, height: 12, ellipsis: true, lineBreak: false });
}

/**
 * One page per label, 4 in × 2 in: a child label per check-in (first name large, last name, room,
 * session and date, the security code boxed, the person's check-in note in reverse print), then one
 * parent stub per security code naming the children under it. Uncompressed content streams: a page
 * of labels is a few KB and its text is plain in the file.
 */
export function renderLabelsPdf(labels: readonly LabelRow[]): Promise<Buffer> {
  const doc = new PDFDocument({ size: LABEL_SIZE, margin: 0, compress: false, autoFirstPage: false, info: { Title: 'Check-in labels' } });
  const chunks: Buffer[] = [];
  doc.on('data', (c: Buffer) => chunks.push(c));
  const done = new Promise<Buffer>((resolve, reject) => {
    doc.on('end', () => resolve(Buffer.concat(chunks)));
    doc.on('error', reject);
  });
  const byCode = new Map<string, LabelRow[]>();
  for (const l of labels) {
    doc.addPage({ size: LABEL_SIZE, margin: 0 });
    childLabel(doc, l);
    byCode.set(l.securityCode, [...(byCode.get(l.securityCode) ?? []), l]);
  }
  for (const [code, children] of byCode) {
    doc.addPage({ size: LABEL_SIZE, margin: 0 });
    parentStub(doc, code, children);
  }
  doc.end();
  return done;
}
