import fs from 'node:fs';
import { once } from 'node:events';
import { parseArgs } from 'node:util';
import type { Writable } from 'node:stream';
import { parse } from 'csv-parse';
import { stringify, type Stringifier } from 'csv-stringify';
import cliProgress from 'cli-progress';
import { and, asc, eq } from 'drizzle-orm';
import type { Db } from '../db/client.js';
import { roles, userRoles, users } from '../db/schema/index.js';
import { isPermission, type Permission } from '../lib/permissions.js';
import type { Principal } from '../plugins/auth.js';
import { analyzeAfterImport, IMPORT_BATCH_SIZE, importContactBatch, type DryRunPlan, type NumberedInput } from '../modules/contacts/import.service.js';
import { createImportService as createGivingImport } from '../modules/finance/import.service.js';
import { createImportService as createGroupsImport } from '../modules/groups/import.service.js';
import { findTenantBySlug } from '../modules/tenants/tenants.repository.js';
import { findUserByLogin, findUserPermissions } from '../modules/users/users.repository.js';
import { contactRow, isoDate, mapperFor, MappingError, parseMaps, type ImportKind, type RowMapper } from '../lib/import-formats.js';

/** A failure the CLI reports as one line (no stack): bad arguments, unknown tenant, unreadable file. */
export class ImportError extends Error {}

export interface CliIo {
  stdout: Writable;
  stderr: Writable & { isTTY?: boolean };
}

export interface ImportSummary {
  kind: ImportKind;
  format: string;
  dryRun: boolean;
  rows: number;
  created: number;
  updated: number;
  /** Rows that changed nothing: a person who already has it all, a group already there. */
  unchanged: number;
  unmatched: number;
  failed: number;
  errorsFile: string | null;
  /** ANALYZE runs of the contacts tables during and after the import. */
  analyses: number;
  seconds: number;
}

const PERMISSIONS: Record<ImportKind, Permission[]> = {
  contacts: ['contacts:write'],
  giving: ['finance:write'],
  groups: ['groups:write', 'hierarchy:all'],
};

/**
 * Rows per batch, one transaction each: the HTTP imports' own (contacts 500: larger batches cost
 * memory, 2,000 took the 100,000-row import's RSS from 230 to 350 MB, and saved no time); giving the
 * finance import's whole request; groups the whole file (see runImport).
 */
const BATCH: Record<ImportKind, number> = { contacts: IMPORT_BATCH_SIZE, giving: 1_000, groups: Infinity };

export const IMPORT_USAGE = `  import contacts|giving|groups --tenant SLUG [--map COLUMN=FIELD]... [--dry-run] [--as USERNAME] FILE.csv
                             import a CSV export (Parish, Planning Center People, ChurchCRM, Breeze, Elvanto),
                             families included (householdKey/householdRole; Household ID, Family, Family Role),
                             birth dates and addresses; the same header mappings and row rules as the HTTP import;
                             rows that fail go to FILE.csv.errors.csv with the reason`;

interface Options {
  kind: ImportKind;
  tenant: string;
  file: string;
  maps: Map<string, string>;
  dryRun: boolean;
  as?: string;
}

/** Arguments checked before the database is opened. */
export function parseImportArgs(args: string[]): Options {
  const [kind, ...rest] = args;
  if (kind !== 'contacts' && kind !== 'giving' && kind !== 'groups') throw new ImportError(`import takes contacts, giving or groups, not ${kind ?? '(none)'}`);
  const { values, positionals } = parseArgs({
    args: rest,
    allowPositionals: true,
    strict: true,
    options: { tenant: { type: 'string' }, map: { type: 'string', multiple: true }, 'dry-run': { type: 'boolean' }, as: { type: 'string' } },
  });
  if (!values.tenant) throw new ImportError(`import ${kind} needs --tenant SLUG`);
  if (positionals.length !== 1) throw new ImportError(`import ${kind} takes one CSV file, got ${positionals.length}`);
  const file = positionals[0];
  if (!fs.existsSync(file) || !fs.statSync(file).isFile()) throw new ImportError(`No such file: ${file}`);
  let maps: Map<string, string>;
  try {
    maps = parseMaps(kind, values.map ?? []);
  } catch (err) {
    throw new ImportError((err as Error).message);
  }
  return { kind, tenant: values.tenant, file, maps, dryRun: values['dry-run'] ?? false, as: values.as };
}

/**
 * The user the import acts as (its changes are recorded under them, its permissions apply): the
 * one named by --as, else the tenant's first active Admin.
 */
async function importingUser(db: Db, tenantId: number, kind: ImportKind, as?: string): Promise<Principal> {
  let user: { id: number; contactId: number; username: string } | undefined;
  if (as) {
    const found = await findUserByLogin(db, tenantId, as);
    if (!found || found.status !== 'Active') throw new ImportError(`No active user ${as} in this tenant`);
    user = found;
  } else {
    [user] = await db
      .select({ id: users.id, contactId: users.contactId, username: users.username })
      .from(users)
      .innerJoin(userRoles, and(eq(userRoles.tenantId, users.tenantId), eq(userRoles.userId, users.id)))
      .innerJoin(roles, and(eq(roles.tenantId, userRoles.tenantId), eq(roles.id, userRoles.roleId)))
      .where(and(eq(users.tenantId, tenantId), eq(users.status, 'Active'), eq(roles.name, 'Admin')))
      .orderBy(asc(users.id))
      .limit(1);
    if (!user) throw new ImportError('The tenant has no active Admin user: name the importing user with --as USERNAME');
  }
  const permissions = new Set((await findUserPermissions(db, tenantId, user.id)).filter(isPermission));
  const missing = PERMISSIONS[kind].filter((p) => !permissions.has(p));
  if (missing.length) throw new ImportError(`User ${user.username} lacks ${missing.join(' and ')} to import ${kind}`);
  return { userId: user.id, tenantId, contactId: user.contactId, username: user.username, sessionId: 'cli-import', permissions };
}

interface ReadRow {
  row: number;
  record: Record<string, string>;
  fields: Record<string, string>;
}

type Outcome = { row: number; status: 'failed'; message: string } | { row: number; status: 'created' | 'updated' | 'unchanged' | 'unmatched' };

/**
 * `parish import <kind> --tenant SLUG FILE`: streams the CSV (csv-parse), maps each record to the
 * HTTP import's fields, and imports it in batches through the same services, one transaction per
 * batch, changes recorded under the importing user. Memory stays bounded by one batch (groups
 * excepted: a parent may be named by a later row, so their rows are planned together).
 */
export async function runImport(db: Db, options: Options, io: CliIo): Promise<ImportSummary> {
  const started = Date.now();
  const tenant = await findTenantBySlug(db, options.tenant);
  if (!tenant) throw new ImportError(`Unknown tenant: ${options.tenant}`);
  const principal = await importingUser(db, tenant.id, options.kind, options.as);
  const summary: ImportSummary = {
    kind: options.kind, format: '', dryRun: options.dryRun, rows: 0, created: 0, updated: 0, unchanged: 0, unmatched: 0, failed: 0,
    errorsFile: null, analyses: 0, seconds: 0,
  };

  let mapper: RowMapper | undefined;
  let header: string[] = [];
  const parser = fs.createReadStream(options.file).pipe(
    parse({
      bom: true,
      trim: true,
      // A blank line, or one of only separators and spaces, is no row (not a failed one).
      skip_empty_lines: true,
      skip_records_with_empty_values: true,
      relax_column_count: true,
      columns: (names: string[]) => {
        header = names.map((n) => String(n));
        mapper = mapperFor(options.kind, header, options.maps);
        return header;
      },
    }),
  );

  const errors = new ErrorsFile(options.file);
  const bar = progressBar(io, fs.statSync(options.file).size, options.kind);
  const importer = batchImporter(db, principal, options, tenant.currency, () => mapper!);
  let batch: ReadRow[] = [];
  // Written since the last ANALYZE: statistics that lag behind a growing table turn the import's own
  // index lookups into scans (a 100,000-row import into an empty tenant took 500 s instead of ~1 min).
  let unanalysed = 0;
  const analyze = async (share?: number) => {
    if (options.dryRun || options.kind !== 'contacts' || !(await analyzeAfterImport(db, unanalysed, share))) return;
    summary.analyses++;
    unanalysed = 0;
  };
  const flush = async () => {
    const rows = batch;
    batch = [];
    for (const outcome of await importer.run(rows)) {
      if (outcome.status === 'failed') {
        summary.failed++;
        await errors.write(header, rows.find((r) => r.row === outcome.row)!.record, outcome.row, outcome.message);
      } else {
        summary[outcome.status]++;
        unanalysed++;
      }
    }
    await analyze(1);
  };
  try {
    for await (const record of parser as AsyncIterable<Record<string, string>>) {
      summary.rows++;
      batch.push({ row: summary.rows, record, fields: mapper!.map(record) });
      if (batch.length >= BATCH[options.kind]) await flush();
      bar?.update(parser.info.bytes, { rows: summary.rows, failed: summary.failed });
    }
    if (batch.length) await flush();
  } catch (err) {
    if (err instanceof MappingError) throw new ImportError(err.message);
    if ((err as { code?: string }).code?.startsWith('CSV_')) throw new ImportError(`${options.file} could not be parsed: ${(err as Error).message}`);
    throw err;
  } finally {
    bar?.stop();
    await errors.close();
  }
  summary.format = mapper?.format ?? 'empty file';
  summary.errorsFile = errors.path;
  await analyze();
  summary.seconds = (Date.now() - started) / 1000;
  io.stdout.write(formatSummary(summary, mapper));
  return summary;
}

/** What each kind does with a batch of read rows. */
function batchImporter(db: Db, principal: Principal, options: Options, currency: string, mapper: () => RowMapper) {
  const plan: DryRunPlan = new Map();
  const giving = createGivingImport({ db });
  const groups = createGroupsImport(db);
  return {
    async run(rows: ReadRow[]): Promise<Outcome[]> {
      if (options.kind === 'contacts') {
        const m = mapper();
        const inputs: NumberedInput[] = rows.map((r) => ({ row: r.row, input: contactRow(r.fields, m) }));
        const result = await importContactBatch(db, principal, inputs, { dryRun: options.dryRun, plan });
        // The service counts the batch's created and updated rows; only failures are named.
        return [
          ...result.errors.map((e): Outcome => ({ row: e.row, status: 'failed', message: e.message })),
          ...counted('created', result.created),
          ...counted('updated', result.updated),
          ...counted('unchanged', result.unchanged),
        ];
      }
      if (options.kind === 'giving') {
        const m = mapper();
        const inputs = rows.map((r) => givingFields(r.fields, m, currency));
        const result = await giving.importContributions(principal, inputs, { dryRun: options.dryRun });
        return result.rows.map((r) =>
          r.status === 'failed' ? { row: rows[r.row - 1].row, status: 'failed', message: r.message ?? 'failed' } : { row: rows[r.row - 1].row, status: r.status === 'unmatched' ? 'unmatched' : 'created' },
        );
      }
      const result = await groups.importGroups(principal, rows.map((r) => r.fields), { dryRun: options.dryRun });
      return [
        ...result.errors.map((e): Outcome => ({ row: rows[e.row - 1].row, status: 'failed', message: e.message })),
        ...counted('created', result.created),
        ...counted('unchanged', result.skipped),
      ];
    },
  };
}

const counted = (status: 'created' | 'updated' | 'unchanged', n: number): Outcome[] => Array.from({ length: n }, () => ({ row: 0, status }));

/** Giving rows as the finance import takes them: YYYY-MM-DD dates, minor units, one payer name. */
function givingFields(fields: Record<string, string>, mapper: RowMapper, currency: string): Record<string, string> {
  const { firstName, lastName, ...out } = fields;
  if (!out.name && (firstName || lastName)) out.name = [firstName, lastName].filter(Boolean).join(' ');
  if (out.date && mapper.dates) out.date = isoDate(out.date, mapper.dates);
  if (out.amount && mapper.majorAmounts) out.amount = minorUnits(out.amount, currency);
  return out;
}

/** "1,234.50" or "$25" in major units → integer minor units of the currency; anything else is left for the import to refuse. */
function minorUnits(value: string, currency: string): string {
  const digits = new Intl.NumberFormat('en', { style: 'currency', currency }).resolvedOptions().maximumFractionDigits ?? 2;
  const m = /^[^\d-]*(\d{1,3}(?:,\d{3})*|\d+)(?:\.(\d+))?$/.exec(value.trim());
  if (!m || (m[2] ?? '').length > digits) return value;
  return String(BigInt(m[1].replace(/,/g, '')) * 10n ** BigInt(digits) + BigInt((m[2] ?? '').padEnd(digits, '0') || '0'));
}

/** `<file>.errors.csv`: the failed rows as read, with their row number and reason; created at the first failure. */
class ErrorsFile {
  private out?: Stringifier;
  private stream?: fs.WriteStream;
  readonly target: string;
  constructor(file: string) {
    this.target = `${file}.errors.csv`;
  }

  get path(): string | null {
    return this.out ? this.target : null;
  }

  async write(header: string[], record: Record<string, string>, row: number, reason: string) {
    if (!this.out) {
      this.stream = fs.createWriteStream(this.target);
      this.out = stringify({ header: true, columns: ['row', 'reason', ...header] });
      this.out.pipe(this.stream);
    }
    if (!this.out.write([String(row), reason, ...header.map((h) => record[h] ?? '')])) await once(this.out, 'drain');
  }

  async close() {
    if (!this.out) {
      // A clean run leaves no errors file, not even one from an earlier run.
      fs.rmSync(this.target, { force: true });
      return;
    }
    this.out.end();
    await once(this.stream!, 'finish');
  }
}

/** A progress bar on stderr, by bytes read; none when stderr is not a terminal (pipes, CI, tests). */
function progressBar(io: CliIo, totalBytes: number, kind: ImportKind) {
  if (!io.stderr.isTTY) return undefined;
  const bar = new cliProgress.SingleBar(
    { stream: io.stderr as NodeJS.WritableStream, format: `${kind} |{bar}| {percentage}% | {rows} rows | {failed} failed | {duration_formatted}`, hideCursor: true },
    cliProgress.Presets.shades_classic,
  );
  bar.start(Math.max(totalBytes, 1), 0, { rows: 0, failed: 0 });
  return bar;
}

function formatSummary(s: ImportSummary, mapper?: RowMapper): string {
  const lines = [
    `${s.dryRun ? 'Dry run (nothing written): ' : ''}${s.kind}, ${s.format} format, ${s.rows} rows in ${s.seconds.toFixed(1)} s`,
    ...(mapper ? [`  columns: ${Object.entries(mapper.used).map(([field, cols]) => `${field} ← ${cols.join(' | ')}`).join('; ')}`] : []),
    `  ${s.dryRun ? 'would create' : 'created'} ${s.created}` +
      (s.kind === 'contacts' ? `, ${s.dryRun ? 'would update' : 'updated'} ${s.updated}` : '') +
      (s.kind !== 'giving' ? `, unchanged ${s.unchanged} (${s.kind === 'groups' ? 'already there' : 'already up to date'})` : '') +
      (s.kind === 'giving' ? `, ${s.unmatched} kept as anonymous gifts flagged unmatched` : '') +
      `, failed ${s.failed}`,
    s.errorsFile ? `  failed rows with their reasons: ${s.errorsFile}` : '  no row failed',
  ];
  if (s.analyses) lines.push(`  contacts tables analysed ${s.analyses} time${s.analyses > 1 ? 's' : ''} (the import changed a substantial share of them)`);
  return `${lines.join('\n')}\n`;
}
