import { fieldChanges, recordChanges, type Actor, type NewChange } from '../../changes/recorder.js';
import { withTenant, type Db } from '../../db/client.js';
import { parseCsvTable } from '../../lib/csv.js';
import { contactRow, FIELDS, FORMATS, isBlankRecord, MappingError, mapperFor, ownFields, parseMaps } from '../../lib/import-formats.js';
import { BadRequestError } from '../../lib/errors.js';
import { validationMessage } from '../../lib/http-errors.js';
import type { Principal } from '../../plugins/auth.js';
import { applyImportMemberships, lockImportKeys, type ImportedHousehold, MAX_MEMBERS, lockImportState, type HouseholdRole, type ImportMembership, type ImportState } from '../households/households.service.js';
import { lockMatchKeys, phoneDigits, refreshSearchColumns } from './contacts.repository.js';
import * as repo from './import.repository.js';
import { ImportRowCheck, MAX_IMPORT_ROWS, type ImportFormats, type ImportRow, type ImportRowResult, type ImportSummary } from './import.schemas.js';

/** Rows per transaction: large enough for set-based statements, small enough never to hold locks for long. */
export const IMPORT_BATCH_SIZE = 500;

interface NumberedRow extends ImportRow {
  row: number;
}

/**
 * A row as the import's rules take it (src/lib/import-formats.ts, the CLI's too): Parish's field
 * names in any case, ignoring spaces, `_` and `-`; strings trimmed, empty ones absent; gender
 * letters, dates, emails, phones and role words cleaned. Idempotent: a CSV row already mapped from
 * another system's headers, or a CLI row, passes through unchanged.
 */
function normalizeRow(raw: Record<string, unknown>): Record<string, unknown> {
  return contactRow(ownFields('contacts', raw));
}

function rowError(value: unknown): string {
  const [issue] = ImportRowCheck.Errors(value);
  const params = (issue?.params ?? {}) as Record<string, unknown>;
  const missing = (params.requiredProperties as string[] | undefined)?.[0];
  const message = validationMessage('', { ...issue, params: missing ? { missingProperty: missing } : params });
  return message.replace(/^\//, '').trim();
}

/**
 * The rows of a request. CSV: the header is recognised as the CLI recognises it (Parish's own
 * columns, Planning Center, ChurchCRM, Breeze, Elvanto) and each record mapped and cleaned by that
 * format's rules (its date order, its families); a record without any value is no row.
 */
export function parseImportBody(body: unknown, maps: string[] = []): Record<string, unknown>[] {
  if (typeof body === 'string') {
    const { header, records } = parseCsvTable(body, MAX_IMPORT_ROWS);
    let mapper;
    try {
      mapper = mapperFor('contacts', header, parseMaps('contacts', maps), { lenient: true });
    } catch (err) {
      if (err instanceof MappingError) throw new BadRequestError(`querystring/map: ${err.message.replace(/--map/g, 'map')}`);
      throw err;
    }
    return records.filter((r) => !isBlankRecord(r)).map((r) => contactRow(mapper.map(r), mapper));
  }
  const rows = (body as { contacts?: unknown } | undefined)?.contacts;
  if (maps.length > 0) throw new BadRequestError('querystring/map applies to a text/csv import only');
  if (!Array.isArray(rows)) throw new BadRequestError('body/contacts is required');
  if (rows.length > MAX_IMPORT_ROWS) throw new BadRequestError(`An import takes at most ${MAX_IMPORT_ROWS} rows`);
  return rows as Record<string, unknown>[];
}

/** A row as read (CSV record or JSON object) with its number in the file, counted from 1. */
export interface NumberedInput {
  row: number;
  input: Record<string, unknown>;
}

export interface BatchResult {
  created: number;
  updated: number;
  /** Rows that matched a person who already has everything they carry: nothing written, no change recorded. */
  unchanged: number;
  errors: ImportSummary['errors'];
  /** Every row's outcome (errors included), in row order. */
  rows: ImportRowResult[];
  households: ImportedHousehold[];
}

/**
 * What a dry run remembers between batches: the match keys (lower-cased email, phone digits) of
 * the people earlier batches would have created, so a later row counts as updating them, as it
 * would in a real run. Holds one entry per distinct key.
 */
export type DryRunPlan = Map<string, number>;

/** The valid rows of `inputs` and the reasons of the others. */
function checkRows(inputs: NumberedInput[]): { valid: NumberedRow[]; errors: ImportSummary['errors']; rows: ImportRowResult[] } {
  const valid: NumberedRow[] = [];
  const errors: ImportSummary['errors'] = [];
  const rows: ImportRowResult[] = [];
  const fail = (row: number, normalized: Record<string, unknown>, message: string) => {
    errors.push({ row, message });
    rows.push({ row, outcome: 'error', name: nameOf(normalized), message });
  };
  for (const { row, input } of inputs) {
    const normalized = normalizeRow(input ?? {});
    if (!ImportRowCheck.Check(normalized)) fail(row, normalized, rowError(normalized));
    else if (normalized.householdRole !== undefined && normalized.householdKey === undefined) fail(row, normalized, 'householdRole needs a householdKey');
    else valid.push({ ...normalized, row });
  }
  return { valid, errors, rows };
}

/** The person's name as a row gives it ("" when it gives none). */
function nameOf(row: { firstName?: unknown; lastName?: unknown }): string {
  return [row.firstName, row.lastName].filter((v): v is string => typeof v === 'string' && v !== '').join(' ');
}

const byRow = (a: { row: number }, b: { row: number }) => a.row - b.row;

/**
 * Imports people (with `dryRun`, matches and counts them as it would, writing nothing): each row matches an existing Person of the caller's tenant by email
 * (case-insensitive), else by phone digits, and updates it, or creates one. Invalid rows are
 * reported and skipped; valid rows are written in batches, one transaction per batch; an import
 * that wrote a substantial share of the contacts table analyses it.
 */
export async function importContacts(db: Db, auth: Principal, body: unknown, options: { dryRun?: boolean; map?: string[] } = {}): Promise<ImportSummary> {
  const raw = parseImportBody(body, options.map);
  const { valid, errors, rows } = checkRows(raw.map((input, index) => ({ row: index + 1, input })));
  const summary: ImportSummary = { total: raw.length, created: 0, updated: 0, unchanged: 0, failed: errors.length, errors, rows, households: [] };
  const plan: DryRunPlan | undefined = options.dryRun ? new Map() : undefined;
  for (let start = 0; start < valid.length; start += IMPORT_BATCH_SIZE) {
    const batch = await withTenant(db, auth, (tx) => importBatch(tx, auth, valid.slice(start, start + IMPORT_BATCH_SIZE), plan));
    summary.created += batch.created;
    summary.updated += batch.updated;
    summary.unchanged += batch.unchanged;
    summary.failed += batch.errors.length;
    errors.push(...batch.errors);
    rows.push(...batch.rows);
    summary.households.push(...batch.households);
  }
  errors.sort(byRow);
  rows.sort(byRow);
  if (!plan) await repo.analyzeAfterImport(db, summary.created + summary.updated);
  return summary;
}

/** The header mappings the CSV import recognises (src/lib/import-formats.ts), for the import wizard. */
export function importFormats(): ImportFormats {
  return {
    fields: [...FIELDS.contacts],
    data: FORMATS.contacts.map((f) => ({
      name: f.name,
      recognisedBy: f.signature,
      columns: Object.fromEntries(Object.entries(f.columns).filter(([field]) => FIELDS.contacts.includes(field))),
      dates: f.dates ?? null,
    })),
  };
}

/**
 * One batch of a streamed import (the CLI's): rows checked, the valid ones written in ONE
 * transaction as importContacts writes them, changes recorded under `actor`. With `dryRun` nothing
 * is written: the rows are matched and counted, `plan` carrying what earlier batches would have created.
 */
export async function importContactBatch(db: Db, actor: Actor, inputs: NumberedInput[], options: { dryRun?: boolean; plan?: DryRunPlan } = {}): Promise<BatchResult> {
  const { valid, errors, rows } = checkRows(inputs);
  if (valid.length === 0) return { created: 0, updated: 0, unchanged: 0, errors, rows, households: [] };
  const result = await withTenant(db, actor, (tx) => importBatch(tx, actor, valid, options.dryRun ? (options.plan ?? new Map()) : undefined));
  return { ...result, errors: [...errors, ...result.errors].sort(byRow), rows: [...rows, ...result.rows].sort(byRow) };
}

/** ANALYZE after a streamed import when it changed a substantial share of the table (see analyzeAfterImport). */
export const analyzeAfterImport = repo.analyzeAfterImport;

interface Target {
  existingId?: number;
  person: Omit<repo.ImportPerson, 'id'>;
  /** The household the rows give the person: its key, the role of the last row naming one, the row that gave the key. */
  household?: { key: string; role?: HouseholdRole; row: number };
}

const NO_HOUSEHOLDS: ImportState = { memberOf: new Map(), byKey: new Map() };

/**
 * Matches and merges a batch's rows; writes them unless `dryRun` (a dry run's plan) is given. A row
 * whose household cannot be what it asks (see householdProblem) is reported and left out.
 */
async function importBatch(tx: Db, actor: Actor, rows: NumberedRow[], dryRun?: DryRunPlan): Promise<BatchResult> {
  const { tenantId } = actor;
  const emailKey = (r: NumberedRow) => r.email?.toLowerCase();
  const digitsKey = (r: NumberedRow) => (r.phone ? phoneDigits(r.phone) : undefined);
  const keys = unique(rows.map((r) => r.householdKey));
  // Concurrent imports and quick guests of the same people match each other's new contacts (lockMatchKeys);
  // concurrent imports of the same household key find each other's household (lockImportKeys).
  if (!dryRun) {
    await lockMatchKeys(tx, tenantId, { emails: rows.map(emailKey), digits: rows.map(digitsKey) });
    await lockImportKeys(tx, tenantId, keys);
  }
  const emailMatch = await repo.matchEmails(tx, unique(rows.map(emailKey)));
  const phoneMatch = await repo.matchPhones(tx, tenantId, unique(rows.map(digitsKey)));
  if (dryRun) {
    // People earlier batches would have created match like stored ones (negative stand-in ids).
    for (const r of rows) {
      const email = emailKey(r);
      const digits = digitsKey(r);
      if (email && !emailMatch.has(email) && dryRun.has(`e:${email}`)) emailMatch.set(email, dryRun.get(`e:${email}`)!);
      if (digits && !phoneMatch.has(digits) && dryRun.has(`p:${digits}`)) phoneMatch.set(digits, dryRun.get(`p:${digits}`)!);
    }
  }
  // The households of the keys and the current ones of the people the rows match, locked (households service).
  const matched = [...emailMatch.values(), ...phoneMatch.values()].filter((id) => id > 0);
  const state = keys.length ? await lockImportState(tx, tenantId, matched, keys) : NO_HOUSEHOLDS;
  // A row's target: an existing contact, or one an earlier row of this batch creates or extends.
  const byEmail = new Map<string, Target>();
  const byDigits = new Map<string, Target>();
  const byExisting = new Map<number, Target>();
  const targets: Target[] = [];
  const add = (existingId?: number): Target => {
    const target: Target = { existingId, person: { firstName: '', lastName: '', emails: [], phones: [], addresses: [] } };
    targets.push(target);
    if (existingId) byExisting.set(existingId, target);
    return target;
  };
  // A target of the batch, else the id of the stored person to target, else nothing (a new person).
  const find = (key: string | undefined, dbMatch: Map<string, number>, inBatch: Map<string, Target>): Target | number | undefined => {
    if (!key) return undefined;
    const id = dbMatch.get(key);
    return id ? (byExisting.get(id) ?? id) : inBatch.get(key);
  };
  let created = 0;
  const errors: ImportSummary['errors'] = [];
  const failed: ImportRowResult[] = [];
  const joining = new Map<string, number>();
  const rowTargets: Target[] = [];
  const rowsOf: NumberedRow[] = [];
  const createdBy = new Map<Target, number>();
  for (const row of rows) {
    const email = emailKey(row);
    const digits = digitsKey(row);
    const found = find(email, emailMatch, byEmail) ?? find(digits, phoneMatch, byDigits);
    if (row.householdKey) {
      const problem = householdProblem(row.householdKey, found, state, joining);
      if (problem) {
        errors.push({ row: row.row, message: problem });
        failed.push({ row: row.row, outcome: 'error', name: nameOf(row), message: problem });
        continue;
      }
    }
    let target: Target;
    if (typeof found === 'number') target = add(found);
    else if (found) target = found;
    else {
      target = add();
      createdBy.set(target, row.row);
      created++;
    }
    merge(target, row);
    if (row.householdKey) target.household = { key: row.householdKey, role: row.householdRole ?? target.household?.role, row: row.row };
    rowTargets.push(target);
    rowsOf.push(row);
    if (email) byEmail.set(email, target);
    if (digits) byDigits.set(digits, target);
  }
  const fresh = targets.filter((t) => !t.existingId);
  // Stored people the batch changes; one who already has everything their rows carry is left alone.
  const stored = targets.filter((t) => t.existingId && t.existingId > 0);
  const before = await repo.loadPeopleNames(tx, tenantId, stored.map((t) => t.existingId!));
  const points = await repo.loadContactPoints(tx, tenantId, stored.map((t) => t.existingId!));
  // A person already as the rows have them is not written; one also already in the rows' household with their role changes nothing.
  const personSame = new Set(stored.filter((t) => isUnchanged(t, before.get(t.existingId!), points)));
  const inPlace = (t: Target) => !t.household || isInHousehold(t, state);
  const same = new Set([...personSame].filter(inPlace));
  const unchanged = rowTargets.filter((t) => same.has(t)).length;
  const outcomes = (idOf?: Map<Target, number>): ImportRowResult[] => [
    ...failed,
    ...rowsOf.map((row, i): ImportRowResult => {
      const t = rowTargets[i];
      const outcome = same.has(t) ? 'unchanged' : createdBy.get(t) === row.row ? 'created' : 'updated';
      const contactId = idOf?.get(t);
      return { row: row.row, outcome, name: nameOf(row), ...(contactId !== undefined ? { contactId } : {}) };
    }),
  ].sort(byRow);
  const counts = { created, updated: rowTargets.length - created - unchanged, unchanged, errors };
  if (dryRun) {
    for (const t of fresh) {
      const standIn = -(dryRun.size + 1);
      for (const e of t.person.emails) dryRun.set(`e:${e.toLowerCase()}`, standIn);
      for (const p of t.person.phones) dryRun.set(`p:${phoneDigits(p)}`, standIn);
    }
    return { ...counts, rows: outcomes(), households: [] };
  }
  const ids = await repo.allocateContactIds(tx, fresh.length);
  const existing = stored.filter((t) => !personSame.has(t));
  await repo.insertPeople(tx, tenantId, fresh.map((t, i) => ({ ...t.person, id: ids[i] })));
  await repo.updatePeople(tx, tenantId, existing.map((t) => ({ ...t.person, id: t.existingId! })), points);
  // Created people got their search columns in the insert; updated ones are refreshed (and touched) once.
  await refreshSearchColumns(tx, tenantId, existing.map((t) => t.existingId!), { touch: true });
  // One change per created or updated contact, all in ONE statement.
  const changes: NewChange[] = ids.map((id) => ({ type: 'contact.created', entityId: id, data: { contactId: id, category: 'Person', status: 'Active', imported: true } }));
  for (const t of existing) {
    const id = t.existingId!;
    const { firstName, lastName, gender, dateOfBirth } = t.person;
    const diff = fieldChanges(before.get(id) ?? {}, { firstName, lastName, gender, dateOfBirth });
    changes.push({ type: 'contact.updated', entityId: id, changes: diff, data: { contactId: id, category: 'Person', imported: true } });
  }
  await recordChanges(tx, actor, changes);
  // Households last: the new people exist, and the memberships are planned against the locked state.
  const idOf = new Map<Target, number>([...fresh.map((t, i): [Target, number] => [t, ids[i]]), ...stored.map((t): [Target, number] => [t, t.existingId!])]);
  const memberships: ImportMembership[] = targets
    .filter((t) => t.household && !(t.existingId && inPlace(t)))
    .map((t) => ({ contactId: idOf.get(t)!, lastName: t.person.lastName, key: t.household!.key, role: t.household!.role }));
  const households = await applyImportMemberships(tx, actor, state, memberships);
  return { ...counts, rows: outcomes(idOf), households };
}

/**
 * Why a row cannot join the household of its key (modules-contract §8 "Import"): its person already
 * belongs to another household (one the key did not make, or another key's), an earlier row of the
 * batch gave the person another key, or the household would pass 30 members. Counts the joiners of
 * each key in `joining`.
 */
function householdProblem(key: string, found: Target | number | undefined, state: ImportState, joining: Map<string, number>): string | undefined {
  const target = typeof found === 'object' ? found : undefined;
  const existingId = typeof found === 'number' ? found : target?.existingId;
  const planned = target?.household;
  if (planned && planned.key !== key) return `householdKey ${key} differs from ${planned.key}, given to the same person by row ${planned.row}`;
  const current = existingId && existingId > 0 ? state.memberOf.get(existingId) : undefined;
  if (current && current.importKey !== key) return `Contact ${existingId} already belongs to household ${current.householdId}`;
  if (current || planned) return undefined;
  const household = state.byKey.get(key);
  const count = (household?.members ?? 0) + (joining.get(key) ?? 0);
  if (count >= MAX_MEMBERS) {
    return household ? `Household ${household.id} already has ${household.members} members (at most ${MAX_MEMBERS})` : `householdKey ${key} has more than ${MAX_MEMBERS} members`;
  }
  joining.set(key, (joining.get(key) ?? 0) + 1);
  return undefined;
}

/** A stored person already in the household of their rows' key, with the role the rows give (if any). */
function isInHousehold(t: Target, state: ImportState): boolean {
  const current = state.memberOf.get(t.existingId!);
  return !!current && current.importKey === t.household!.key && (t.household!.role === undefined || t.household!.role === current.role);
}

/** A stored person whose names, gender, date of birth, emails, phones and addresses already are what the rows would write. */
function isUnchanged(t: Target, before: repo.PersonFields | undefined, points: repo.ContactPoints): boolean {
  const id = t.existingId!;
  const p = t.person;
  return (
    !!before &&
    before.firstName === p.firstName &&
    before.lastName === p.lastName &&
    (p.gender === undefined || p.gender === before.gender) &&
    (p.dateOfBirth === undefined || p.dateOfBirth === before.dateOfBirth) &&
    p.emails.every((e) => points.emailsOf.get(id)?.has(e.toLowerCase())) &&
    p.phones.every((v) => points.phonesOf.get(id)?.has(phoneDigits(v))) &&
    p.addresses.every((a) => points.addressesOf.get(id)?.has(repo.addressKey(a)))
  );
}

/** Later rows win for names, gender and date of birth; emails, phones and addresses accumulate without duplicates. */
function merge(target: Target, row: NumberedRow) {
  const p = target.person;
  p.firstName = row.firstName;
  p.lastName = row.lastName;
  if (row.gender) p.gender = row.gender;
  if (row.dateOfBirth) p.dateOfBirth = row.dateOfBirth;
  if (row.street || row.city || row.country) {
    const address = { street: row.street ?? null, city: row.city ?? null, country: row.country ?? null };
    if (!p.addresses.some((a) => repo.addressKey(a) === repo.addressKey(address))) p.addresses.push(address);
  }
  if (row.email && !p.emails.some((e) => e.toLowerCase() === row.email!.toLowerCase())) p.emails.push(row.email);
  if (row.phone && !p.phones.some((v) => phoneDigits(v) === phoneDigits(row.phone!))) p.phones.push(row.phone);
}

function unique(values: (string | undefined)[]): string[] {
  return [...new Set(values.filter((v): v is string => !!v))];
}
