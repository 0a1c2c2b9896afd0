import { sql } from 'drizzle-orm';
import { parse } from 'csv-parse/sync';
import { recordChanges } from '../../changes/recorder.js';
import { withTenant, type Db } from '../../db/client.js';
import { CONTRIBUTION_METHODS, type ContributionMethod } from '../../db/schema/finance.js';
import { parseCsvRecords } from '../../lib/csv.js';
import { BadRequestError } from '../../lib/errors.js';
import { MAX_AMOUNT } from '../../lib/money.js';
import { DATE_PATTERN } from '../../lib/schemas.js';
import type { Principal } from '../../plugins/auth.js';
import { insertContributions, type NewContribution } from './contributions.repository.js';
import { changeData, checkOpenBatch } from './contributions.service.js';
import { currencyOf, rowsOf } from './finance.common.js';
import { MAX_IMPORT_ROWS, type ImportResult, type ImportRowInput } from './finance.schemas.js';

/**
 * POST /api/finance/contributions/import. Rows are checked one by one (a bad row fails alone,
 * numbered from 1); donors are matched in ONE statement per call (finance_import_donor_matches,
 * drizzle/0023 and 0026: index probes per row, a later key looked up only when the earlier ones
 * matched nobody): by contactId, else email, else phone digits, else exact full name (case and
 * spacing aside), each only when it names exactly one contact. Rows that carry payer details matching nobody are kept as anonymous gifts flagged
 * `unmatched` (with the payer's details) so nothing is lost. Writes are three statements whatever
 * the row count, plus one for the changes; dryRun writes nothing.
 */

export const REQUIRED_CSV_COLUMNS = ['date', 'amount', 'fund'] as const;

/** CSV text to rows: the header must name date, amount and fund (400 otherwise). */
export function csvImportRows(text: string): ImportRowInput[] {
  let header: string[] = [];
  try {
    header = ((parse(text, { bom: true, to_line: 1, trim: true }) as string[][])[0] ?? []).map((h) => h.trim());
  } catch (err) {
    throw new BadRequestError(`CSV could not be parsed: ${(err as Error).message.split('\n')[0]}`);
  }
  const missing = REQUIRED_CSV_COLUMNS.filter((c) => !header.includes(c));
  if (missing.length) throw new BadRequestError(`CSV is missing the column${missing.length > 1 ? 's' : ''} ${missing.join(', ')} (header: date,amount,fund,contactId,email,phone,name,method,reference)`);
  return parseCsvRecords(text, MAX_IMPORT_ROWS) as ImportRowInput[];
}

interface CheckedRow {
  row: number;
  date: string;
  amount: number;
  fund: string;
  method: ContributionMethod;
  reference: string | null;
  contactId: number | null;
  email: string | null;
  phone: string | null;
  digits: string;
  name: string | null;
}

const text = (v: unknown): string | null => (v === null || v === undefined || String(v).trim() === '' ? null : String(v).trim());

const DATE_RE = new RegExp(DATE_PATTERN);

function validDate(value: string): boolean {
  if (!DATE_RE.test(value)) return false;
  const d = new Date(`${value}T00:00:00Z`);
  return !Number.isNaN(d.getTime()) && d.toISOString().slice(0, 10) === value;
}

/** One row's values, or the reason it fails. `dates`: the dates checked so far in this import (a bank
 * statement repeats a few dozen dates over thousands of rows; building a Date per row was ~15 µs each). */
function checkRow(input: ImportRowInput, row: number, dates: Map<string, boolean>): CheckedRow | string {
  const date = text(input.date);
  if (!date) return 'date must be a date YYYY-MM-DD';
  let dateOk = dates.get(date);
  if (dateOk === undefined) dates.set(date, (dateOk = validDate(date)));
  if (!dateOk) return 'date must be a date YYYY-MM-DD';
  const amountText = text(input.amount);
  if (!amountText || !/^\d{1,13}$/.test(amountText) || Number(amountText) < 1 || Number(amountText) > MAX_AMOUNT) {
    return `amount must be an integer number of minor units from 1 to ${MAX_AMOUNT}`;
  }
  const fund = text(input.fund);
  if (!fund) return 'fund is required (a fund name or code)';
  const method = text(input.method) ?? 'Other';
  if (!(CONTRIBUTION_METHODS as readonly string[]).includes(method)) return `method must be one of ${CONTRIBUTION_METHODS.join(', ')}`;
  const contactText = text(input.contactId);
  if (contactText !== null && !/^[1-9]\d{0,15}$/.test(contactText)) return 'contactId must be a positive integer';
  const email = text(input.email);
  const phone = text(input.phone);
  const name = text(input.name)?.replace(/\s+/g, ' ') ?? null;
  const reference = text(input.reference);
  if ((email?.length ?? 0) > 254 || (phone?.length ?? 0) > 50 || (name?.length ?? 0) > 200 || (reference?.length ?? 0) > 200 || fund.length > 200) {
    return 'a value is too long (email 254, phone 50, name, fund and reference 200 characters)';
  }
  if ([email, phone, name, reference, fund].some((v) => v?.includes('\u0000'))) return 'values must not contain NUL characters';
  return {
    row, date, amount: Number(amountText), fund, method: method as ContributionMethod, reference,
    contactId: contactText === null ? null : Number(contactText), email, phone, digits: phone?.replace(/\D/g, '') ?? '', name,
  };
}

/**
 * Donors of the rows in one statement (finance_import_donor_matches, drizzle/0026: index probes per
 * row, never a scan of the tenant's contacts): `byId` {row → contact id} for rows naming a
 * contactId that exists, `matched` {row → contact id} for the others' email, phone digits or name.
 */
async function matchDonors(tx: Db, rows: CheckedRow[]): Promise<{ byId: Map<number, number>; matched: Map<number, number> }> {
  const input = rows.map((r) => ({ row: r.row, contact_id: r.contactId, email: r.email, digits: r.digits || null, name: r.name }));
  const result = rowsOf<{ row_no: number; by_id: unknown; matched: unknown }>(
    await tx.execute(sql`select row_no, by_id, matched from finance_import_donor_matches(${JSON.stringify(input)}::jsonb)`),
  );
  const byId = new Map<number, number>();
  const matched = new Map<number, number>();
  for (const r of result) {
    if (r.by_id !== null) byId.set(Number(r.row_no), Number(r.by_id));
    if (r.matched !== null) matched.set(Number(r.row_no), Number(r.matched));
  }
  return { byId, matched };
}

export function createImportService({ db }: { db: Db }) {
  return {
    importContributions: (auth: Principal, inputs: ImportRowInput[], options: { batchId?: number | null; dryRun?: boolean }): Promise<ImportResult> => {
      if (inputs.length > MAX_IMPORT_ROWS) throw new BadRequestError(`An import takes at most ${MAX_IMPORT_ROWS} rows`);
      return withTenant(db, auth, async (tx) => {
        const t = auth.tenantId;
        const currency = await currencyOf(tx, t);
        const batchId = options.batchId ?? null;
        if (batchId !== null) await checkOpenBatch(tx, t, batchId);
        const results: ImportResult['rows'] = inputs.map((_, i) => ({ row: i + 1, status: 'failed', contactId: null, message: null }));
        const checked: CheckedRow[] = [];
        const dates = new Map<string, boolean>();
        inputs.forEach((input, i) => {
          const c = checkRow(input, i + 1, dates);
          if (typeof c === 'string') results[i].message = c;
          else checked.push(c);
        });
        const fundRows = rowsOf<{ id: unknown; name: string; code: string | null; is_active: boolean }>(
          await tx.execute(sql`select id, name, code, is_active from funds where tenant_id = ${t}`),
        );
        const fundByKey = new Map<string, { id: number; name: string; isActive: boolean }>();
        // Names win over codes when one fund's code is another's name.
        for (const f of fundRows) if (f.code) fundByKey.set(f.code.toLowerCase(), { id: Number(f.id), name: f.name, isActive: f.is_active });
        for (const f of fundRows) fundByKey.set(f.name.toLowerCase(), { id: Number(f.id), name: f.name, isActive: f.is_active });
        const { byId, matched } = checked.length ? await matchDonors(tx, checked) : { byId: new Map(), matched: new Map() };
        const toWrite: (NewContribution & { row: number })[] = [];
        for (const r of checked) {
          const out = results[r.row - 1];
          const fund = fundByKey.get(r.fund.toLowerCase());
          if (!fund) { out.message = `Fund ${r.fund} not found`; continue; }
          if (!fund.isActive) { out.message = `Fund ${fund.name} is not active`; continue; }
          let contactId: number | null = null;
          if (r.contactId !== null) {
            contactId = byId.get(r.row) ?? null;
            if (contactId === null) { out.message = `Contact with id ${r.contactId} not found`; continue; }
          } else {
            contactId = matched.get(r.row) ?? null;
          }
          const hasPayer = r.email !== null || r.phone !== null || r.name !== null;
          const unmatched = contactId === null && hasPayer;
          out.status = unmatched ? 'unmatched' : 'created';
          out.contactId = contactId;
          out.message = unmatched ? 'No contact matched: recorded as an anonymous gift flagged unmatched' : null;
          toWrite.push({
            row: r.row, contactId, date: r.date, amount: r.amount, method: r.method, reference: r.reference, notes: null, batchId,
            isUnmatched: unmatched, payerName: contactId === null ? r.name : null, payerEmail: contactId === null ? r.email : null,
            payerPhone: contactId === null ? r.phone : null, lines: [{ fundId: fund.id, amount: r.amount }],
          });
        }
        if (!options.dryRun && toWrite.length) {
          const ids = await insertContributions(tx, t, toWrite);
          await recordChanges(tx, auth, toWrite.map((c, i) => ({
            type: 'contribution.created' as const, entityId: ids[i],
            data: { ...changeData(c, [c.lines[0].fundId], currency), imported: true, unmatched: c.isUnmatched ?? false },
          })));
        }
        const count = (status: string) => results.filter((r) => r.status === status).length;
        return {
          total: inputs.length,
          created: count('created'),
          matched: results.filter((r) => r.status === 'created' && r.contactId !== null).length,
          unmatched: count('unmatched'),
          failed: count('failed'),
          rows: results,
        };
      });
    },
  };
}
