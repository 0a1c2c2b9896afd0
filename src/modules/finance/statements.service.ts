import { once } from 'node:events';
import { ZipArchive } from 'archiver';
import { withTenant, type Db } from '../../db/client.js';
import { BadRequestError, NotFoundError } from '../../lib/errors.js';
import { todayIn } from '../../lib/periods.js';
import type { Principal } from '../../plugins/auth.js';
import { loadTenantSettings } from '../../tenancy/settings.js';
import { fundsById } from './finance.common.js';
import { csvText } from './finance.csv.js';
import type { BulkStatementsBody, Statement, StatementQuery } from './finance.schemas.js';
import { renderStatementPdf } from './statement.pdf.js';
import { donorsReaching, loadStatements, type StatementScope } from './statements.repository.js';

/** Statements: JSON, CSV or PDF for one donor; a streamed ZIP of PDFs for every donor reaching a total. */

/** The period asked for, or the previous calendar year in the tenant's time zone. */
export function statementPeriod(timeZone: string, from?: string, to?: string): { from: string; to: string } {
  const lastYear = Number(todayIn(timeZone).slice(0, 4)) - 1;
  const period = { from: from ?? `${String(lastYear).padStart(4, '0')}-01-01`, to: to ?? `${String(lastYear).padStart(4, '0')}-12-31` };
  if (period.to < period.from) throw new BadRequestError('to must not precede from');
  return period;
}

export type StatementOutput =
  | { format: 'json'; statement: Statement }
  | { format: 'csv'; body: string; filename: string }
  | { format: 'pdf'; body: Buffer; filename: string };

const CSV_COLUMNS = ['date', 'fund', 'amount', 'currency', 'method', 'reference', 'taxDeductible'];

export function statementFilename(s: Statement, ext: string): string {
  const name = `${s.contact.lastName || s.contact.firstName}`.replace(/[^A-Za-z0-9_-]+/g, '-').replace(/^-|-$/g, '') || 'donor';
  return `statement-${s.contact.id}-${name}-${s.period.from}-${s.period.to}.${ext}`;
}

export function createStatementsService({ db }: { db: Db }) {
  async function one(auth: Principal, contactId: number, query: StatementQuery): Promise<StatementOutput> {
    const statement = await withTenant(db, auth, async (tx) => {
      // The time zone only places the default period: with both dates the statement reads the tenant itself.
      const timeZone = query.from !== undefined && query.to !== undefined ? 'UTC' : (await loadTenantSettings(tx, auth.tenantId)).timeZone;
      const period = statementPeriod(timeZone, query.from, query.to);
      const map = await loadStatements(tx, auth.tenantId, [contactId], period);
      const statement = map.get(contactId);
      if (!statement) throw new NotFoundError('Contact', contactId);
      return statement;
    });
    const format = query.format ?? 'json';
    if (format === 'pdf') return { format, body: await renderStatementPdf(statement), filename: statementFilename(statement, 'pdf') };
    if (format === 'csv') {
      const rows = statement.lines.map((l) => ({ date: l.date, fund: l.fund.name, amount: l.amount, currency: statement.currency, method: l.method, reference: l.reference ?? '', taxDeductible: l.isTaxDeductible }));
      return { format, body: csvText(CSV_COLUMNS, rows), filename: statementFilename(statement, 'csv') };
    }
    return { format: 'json', statement };
  }

  return {
    statement: one,

    /** The caller's own statement (any valid token); 404 when the user has no linked contact. */
    myStatement: async (auth: Principal, query: StatementQuery) => {
      if (!auth.contactId) throw new NotFoundError('Your linked contact');
      try {
        return await one(auth, auth.contactId, query);
      } catch (err) {
        if (err instanceof NotFoundError) throw new NotFoundError('Your linked contact');
        throw err;
      }
    },

    /**
     * Checks the request and finds the donors (ids only) before anything is sent, so errors are
     * still plain JSON; `stream` then writes one PDF per donor into the archive, loading statements
     * 100 donors per query and waiting for each entry to be written out (memory stays flat in the
     * number of donors however slow the client).
     */
    prepareBulk: async (auth: Principal, body: BulkStatementsBody) => {
      const prepared = await withTenant(db, auth, async (tx) => {
        const settings = await loadTenantSettings(tx, auth.tenantId);
        const period = statementPeriod(settings.timeZone, body.from, body.to);
        if (body.fundIds?.length) {
          const found = await fundsById(tx, auth.tenantId, body.fundIds);
          const missing = body.fundIds.filter((id) => !found.has(id));
          if (missing.length) throw new NotFoundError(missing.length > 1 ? 'Funds' : 'Fund', missing);
        }
        const scope: StatementScope = { ...period, fundIds: body.fundIds };
        const donors = await donorsReaching(tx, auth.tenantId, scope, body.minTotal ?? 1);
        return { settings, scope, donors };
      });
      const { settings, scope, donors } = prepared;
      const filename = `statements-${scope.from}-${scope.to}.zip`;
      const stream = () => {
        const archive = new ZipArchive({ zlib: { level: 6 } });
        const closed = new Promise<never>((_, reject) => archive.once('close', () => reject(new Error('archive closed'))));
        closed.catch(() => {});
        void (async () => {
          for (let i = 0; i < donors.length; i += 100) {
            const chunk = donors.slice(i, i + 100);
            const statements = await withTenant(db, auth, (tx) => loadStatements(tx, auth.tenantId, chunk, scope, settings));
            for (const id of chunk) {
              const s = statements.get(id);
              if (!s) continue;
              const pdf = await renderStatementPdf(s);
              const written = once(archive, 'entry');
              archive.append(pdf, { name: statementFilename(s, 'pdf') });
              await Promise.race([written, closed]);
            }
          }
          await archive.finalize();
        })().catch((err: unknown) => archive.destroy(err as Error));
        return archive;
      };
      return { filename, count: donors.length, stream };
    },
  };
}
