import { pipeline, Readable } from 'node:stream';
import { sql } from 'drizzle-orm';
import { withTenant, type Db } from '../../db/client.js';
import { toMinor } from '../../lib/money.js';
import type { Principal } from '../../plugins/auth.js';
import { contributionWhere } from './contributions.repository.js';
import { currencyOf, rowsOf } from './finance.common.js';
import { csvStream } from './finance.csv.js';
import type { ContributionFilter } from './finance.schemas.js';

/**
 * GET /api/finance/contributions/export: the list's filters, every match as CSV, streamed. Rows are
 * read 1,000 at a time by keyset on (date, id) — each page its own short transaction — and written
 * through csv-stringify as the client reads, so memory stays flat however many rows match.
 * Order: date then id, ascending (the list's `sort` does not apply).
 */

export const EXPORT_COLUMNS = [
  'id', 'date', 'contactId', 'firstName', 'lastName', 'amount', 'currency', 'method', 'reference', 'notes', 'status',
  'refundedAmount', 'batchId', 'batchName', 'funds', 'unmatched', 'payerName',
];
const PAGE = 1000;

interface ExportRow {
  id: unknown; date: string; contact_id: unknown; first_name: string | null; last_name: string | null; amount: unknown; method: string;
  reference: string | null; notes: string | null; status: string; refunded_amount: unknown; batch_id: unknown; batch_name: string | null;
  funds: string | null; is_unmatched: boolean; payer_name: string | null;
}

async function exportPage(tx: Db, tenantId: number, filter: ContributionFilter, after: { date: string; id: number } | undefined): Promise<ExportRow[]> {
  const keyset = after ? sql`and (c.date, c.id) > (${after.date}::date, ${after.id}::bigint)` : sql``;
  return rowsOf<ExportRow>(
    await tx.execute(sql`
      select c.id, c.date::text as date, c.contact_id, coalesce(p.first_name, co.name) as first_name, p.last_name, c.amount, c.method,
        c.reference, c.notes, c.status, c.refunded_amount, c.batch_id, b.name as batch_name, c.is_unmatched, c.payer_name,
        (select string_agg(f.name || ':' || l.amount, '; ' order by l.id) from contribution_lines l
          join funds f on f.tenant_id = l.tenant_id and f.id = l.fund_id where l.tenant_id = c.tenant_id and l.contribution_id = c.id) as funds
      from contributions c
      left join persons p on p.tenant_id = c.tenant_id and p.contact_id = c.contact_id
      left join companies co on co.tenant_id = c.tenant_id and co.contact_id = c.contact_id
      left join batches b on b.tenant_id = c.tenant_id and b.id = c.batch_id
      where ${contributionWhere(tenantId, filter)} ${keyset}
      order by c.date, c.id limit ${PAGE}`),
  );
}

export function createExportService({ db }: { db: Db }) {
  return {
    /** Reads the currency first (errors before any byte is sent), then returns the CSV stream. */
    exportCsv: async (auth: Principal, filter: ContributionFilter): Promise<Readable> => {
      const currency = await withTenant(db, auth, (tx) => currencyOf(tx, auth.tenantId));
      async function* records() {
        let after: { date: string; id: number } | undefined;
        for (;;) {
          const page = await withTenant(db, auth, (tx) => exportPage(tx, auth.tenantId, filter, after));
          for (const r of page) {
            yield {
              id: Number(r.id), date: r.date, contactId: r.contact_id === null ? '' : Number(r.contact_id), firstName: r.first_name ?? '',
              lastName: r.last_name ?? '', amount: toMinor(r.amount), currency, method: r.method, reference: r.reference ?? '', notes: r.notes ?? '',
              status: r.status, refundedAmount: toMinor(r.refunded_amount), batchId: r.batch_id === null ? '' : Number(r.batch_id),
              batchName: r.batch_name ?? '', funds: r.funds ?? '', unmatched: r.is_unmatched, payerName: r.payer_name ?? '',
            };
          }
          if (page.length < PAGE) return;
          const last = page[page.length - 1];
          after = { date: last.date, id: Number(last.id) };
        }
      }
      const out = csvStream(EXPORT_COLUMNS);
      // pipeline: a client that goes away destroys the reader too (no generator left suspended).
      return pipeline(Readable.from(records()), out, () => {});
    },
  };
}
