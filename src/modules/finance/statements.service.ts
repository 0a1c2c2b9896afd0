import { once } from 'node:events';
import { ZipArchive } from 'archiver';
import { withTenant, type Db } from '../../db/client.js';
import { BadRequestError, NotFoundError } from '../../lib/errors.js';
import { todayIn } from '../../lib/periods.js';
import type { Principal } from '../../plugins/auth.js';
import { loadTenantSettings } from '../../tenancy/settings.js';
import { givingTogetherMembers, statementHousehold, statementHouseholds } from '../households/households.service.js';
import { fundsById } from './finance.common.js';
import { csvText } from './finance.csv.js';
import type { BulkStatementsBody, HouseholdStatement, Statement, StatementQuery } from './finance.schemas.js';
import { renderStatementPdf } from './statement.pdf.js';
import { hasGiftsBetween, loadHouseholdStatements, loadStatements, recipientsReaching, type StatementScope, type Together } from './statements.repository.js';

/**
 * Statements: JSON, CSV or PDF for one donor or one household (its members' gifts together); a
 * streamed ZIP of PDFs, one per giving-together household and one per other donor reaching a total.
 */

/** The period asked for, or the previous calendar year in the tenant's time zone. */
function statementPeriod(timeZone: string, from?: string, to?: string): { from: string; to: string } {
  const lastYear = Number(todayIn(timeZone).slice(0, 4)) - 1;
  const period = { from: from ?? `${String(lastYear).padStart(4, '0')}-01-01`, to: to ?? `${String(lastYear).padStart(4, '0')}-12-31` };
  if (period.to < period.from) throw new BadRequestError('to must not precede from');
  return period;
}

/**
 * The statement's period: the one asked for; with neither date, the previous calendar year, unless
 * the church recorded no gift in it (its first year with Parish), then this year to date — so a
 * church's first statement is not empty. The answer's `period` says which applied.
 */
async function periodOf(tx: Db, tenantId: number, query: { from?: string; to?: string }): Promise<{ from: string; to: string }> {
  if (query.from !== undefined && query.to !== undefined) return statementPeriod('UTC', query.from, query.to);
  const { timeZone } = await loadTenantSettings(tx, tenantId);
  const period = statementPeriod(timeZone, query.from, query.to);
  if (query.from !== undefined || query.to !== undefined || (await hasGiftsBetween(tx, tenantId, period.from, period.to))) return period;
  const today = todayIn(timeZone);
  return { from: `${today.slice(0, 4)}-01-01`, to: today };
}

export type StatementOutput<S = Statement> =
  | { format: 'json'; statement: S }
  | { format: 'csv'; body: string; filename: string }
  | { format: 'pdf'; body: Buffer; filename: string };

const CSV_COLUMNS = ['date', 'fund', 'amount', 'currency', 'method', 'reference', 'taxDeductible'];
const HOUSEHOLD_CSV_COLUMNS = ['date', 'giver', 'fund', 'amount', 'currency', 'method', 'reference', 'taxDeductible'];

const fileSafe = (name: string, fallback: string) => name.replace(/[^A-Za-z0-9_-]+/g, '-').replace(/^-|-$/g, '') || fallback;

/** `statement-<contact id>-<last name>-<from>-<to>.<ext>`; a household's `household-statement-<household id>-<name>-<from>-<to>.<ext>`. */
export function statementFilename(s: Statement | HouseholdStatement, ext: string): string {
  if ('household' in s) return `household-statement-${s.household.id}-${fileSafe(s.household.name, 'household')}-${s.period.from}-${s.period.to}.${ext}`;
  return `statement-${s.contact.id}-${fileSafe(`${s.contact.lastName || s.contact.firstName}`, 'donor')}-${s.period.from}-${s.period.to}.${ext}`;
}

export function createStatementsService({ db }: { db: Db }) {
  async function one(auth: Principal, contactId: number, query: StatementQuery): Promise<StatementOutput> {
    const statement = await withTenant(db, auth, async (tx) => {
      const period = await periodOf(tx, auth.tenantId, query);
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

  /** A household's statement over its current members' gifts (givingTogether or not); another tenant's or an unknown household is 404. */
  async function household(auth: Principal, householdId: number, query: StatementQuery): Promise<StatementOutput<HouseholdStatement>> {
    const statement = await withTenant(db, auth, async (tx) => {
      const found = await statementHousehold(tx, auth.tenantId, householdId);
      if (!found) throw new NotFoundError('Household', householdId);
      const period = await periodOf(tx, auth.tenantId, query);
      const together = found.members.map((m) => ({ contactId: m.id, householdId }));
      return (await loadHouseholdStatements(tx, auth.tenantId, [found], together, period)).get(householdId)!;
    });
    const format = query.format ?? 'json';
    if (format === 'pdf') return { format, body: await renderStatementPdf(statement), filename: statementFilename(statement, 'pdf') };
    if (format === 'csv') {
      const rows = statement.lines.map((l) => ({
        date: l.date, giver: [l.giver.firstName, l.giver.lastName].filter(Boolean).join(' '), fund: l.fund.name, amount: l.amount, currency: statement.currency,
        method: l.method, reference: l.reference ?? '', taxDeductible: l.isTaxDeductible,
      }));
      return { format, body: csvText(HOUSEHOLD_CSV_COLUMNS, rows), filename: statementFilename(statement, 'csv') };
    }
    return { format: 'json', statement };
  }

  return {
    statement: one,
    householdStatement: household,

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
     * Checks the request and finds the addressees (ids only) before anything is sent, so errors are
     * still plain JSON: one per giving-together household (its members' gifts together, the combined
     * total compared with minTotal) and one per other donor, so no gift is in two PDFs. `stream` then
     * writes one PDF per addressee into the archive, loading statements 100 addressees per query and
     * waiting for each entry to be written out (memory stays flat in the number of donors however
     * slow the client). A household's PDF covers the members it had when the request was checked.
     */
    prepareBulk: async (auth: Principal, body: BulkStatementsBody) => {
      const prepared = await withTenant(db, auth, async (tx) => {
        const settings = await loadTenantSettings(tx, auth.tenantId);
        const period = await periodOf(tx, auth.tenantId, body);
        if (body.fundIds?.length) {
          const found = await fundsById(tx, auth.tenantId, body.fundIds);
          const missing = body.fundIds.filter((id) => !found.has(id));
          if (missing.length) throw new NotFoundError(missing.length > 1 ? 'Funds' : 'Fund', missing);
        }
        const scope: StatementScope = { ...period, fundIds: body.fundIds };
        const together = await givingTogetherMembers(tx, auth.tenantId);
        const recipients = await recipientsReaching(tx, auth.tenantId, scope, body.minTotal ?? 1, together);
        return { settings, scope, together, recipients };
      });
      const { settings, scope, recipients } = prepared;
      // Only the members of households that get a PDF are kept past the check.
      const sent = new Set(recipients.flatMap((r) => (r.kind === 'household' ? [r.id] : [])));
      const membersOf = new Map<number, Together[]>();
      for (const t of prepared.together) {
        if (!sent.has(t.householdId)) continue;
        const list = membersOf.get(t.householdId);
        if (list) list.push(t);
        else membersOf.set(t.householdId, [t]);
      }
      const filename = `statements-${scope.from}-${scope.to}.zip`;
      const stream = () => {
        const archive = new ZipArchive({ zlib: { level: 6 } });
        const closed = new Promise<never>((_, reject) => archive.once('close', () => reject(new Error('archive closed'))));
        closed.catch(() => {});
        void (async () => {
          for (let i = 0; i < recipients.length; i += 100) {
            const chunk = recipients.slice(i, i + 100);
            const contactIds = chunk.flatMap((r) => (r.kind === 'contact' ? [r.id] : []));
            const householdIds = chunk.flatMap((r) => (r.kind === 'household' ? [r.id] : []));
            const { people, households } = await withTenant(db, auth, async (tx) => {
              const found = await statementHouseholds(tx, auth.tenantId, householdIds);
              const together = householdIds.flatMap((id) => membersOf.get(id) ?? []);
              return {
                people: contactIds.length ? await loadStatements(tx, auth.tenantId, contactIds, scope, settings) : new Map<number, Statement>(),
                households: found.length ? await loadHouseholdStatements(tx, auth.tenantId, found, together, scope, settings) : new Map<number, HouseholdStatement>(),
              };
            });
            for (const r of chunk) {
              const s = r.kind === 'household' ? households.get(r.id) : people.get(r.id);
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
      return { filename, count: recipients.length, stream };
    },
  };
}
