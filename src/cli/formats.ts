/**
 * The column sets `parish import` recognises, per kind of import: Parish's own headers and the
 * exports of other church systems, told apart by the headers they carry. A recognised header is
 * translated to the fields of the HTTP imports (api-contract §5 and the finance and groups
 * imports); `--map column=field` adds or overrides columns. Headers compare case-insensitively
 * ignoring everything but letters and digits ("Cell Phone", "cell_phone" and "CellPhone" are one).
 */

export type ImportKind = 'contacts' | 'giving' | 'groups';

/** The fields each kind of import takes (the HTTP import's row). */
export const FIELDS: Record<ImportKind, readonly string[]> = {
  contacts: ['firstName', 'lastName', 'email', 'phone', 'gender', 'householdKey', 'householdRole'],
  giving: ['date', 'amount', 'fund', 'method', 'reference', 'contactId', 'email', 'phone', 'name', 'firstName', 'lastName'],
  groups: ['name', 'category', 'parentName'],
};

export interface Format {
  name: string;
  /** Headers that must all be present for the file to be this format. */
  signature: string[];
  /** Field → source headers in order of preference: the first non-empty one is taken. */
  columns: Record<string, string[]>;
  /** Amounts in major units ("25.00"), converted to the tenant currency's minor units. */
  majorAmounts?: boolean;
  /** How the export writes dates other than YYYY-MM-DD. */
  dates?: 'month-first' | 'day-first';
  /**
   * Another system's families (modules-contract §8 "Import"): its role words are translated (see
   * householdRole), a role without a family is dropped rather than failed, and the key values in
   * `noKey` mean "no family" (ChurchCRM writes family 0 for a person outside any).
   */
  families?: { noKey?: string[] };
}

/** Own columns: the HTTP import's field names themselves. */
const own = (kind: ImportKind): Format => ({ name: 'Parish', signature: [], columns: Object.fromEntries(FIELDS[kind].map((f) => [f, [f]])) });

/**
 * People exports. Sources: ChurchCRM's CSVCreateFile.php (its "CSV export" of people); Planning
 * Center People's documented default fields; Breeze's people export and its contributions export
 * as migration tools document them; Elvanto's documented people fields.
 */
export const FORMATS: Record<ImportKind, Format[]> = {
  contacts: [
    {
      name: 'Planning Center People',
      signature: ['First Name', 'Last Name', 'Home Email', 'Mobile Phone Number'],
      columns: {
        firstName: ['First Name', 'Given Name', 'Nickname'],
        lastName: ['Last Name'],
        email: ['Home Email', 'Work Email', 'Other Email'],
        phone: ['Mobile Phone Number', 'Home Phone Number', 'Work Phone Number', 'Other Phone Number'],
        gender: ['Gender'],
        householdKey: ['Household ID'],
        // Not a field of the HTTP import: the primary contact is the household's Head (see householdPrimary).
        householdPrimary: ['Household Primary Contact'],
      },
      families: {},
    },
    {
      name: 'ChurchCRM',
      signature: ['Family ID', 'Person Id', 'Last Name'],
      columns: {
        firstName: ['First Name'],
        lastName: ['Last Name'],
        email: ['Email', 'Work Email'],
        phone: ['Cell Phone', 'Home Phone', 'Work Phone'],
        gender: ['Gender'],
        householdKey: ['Family ID', 'Family'],
        householdRole: ['Family Role'],
      },
      families: { noKey: ['0'] },
    },
    {
      name: 'Breeze',
      signature: ['Breeze ID', 'First Name', 'Last Name'],
      columns: {
        firstName: ['First Name', 'Nickname'],
        lastName: ['Last Name'],
        email: ['Email'],
        phone: ['Mobile', 'Home', 'Work'],
        gender: ['Gender'],
        householdKey: ['Family ID', 'Family'],
        householdRole: ['Family Role'],
      },
      families: {},
    },
    {
      name: 'Elvanto',
      signature: ['First Name', 'Preferred Name', 'Last Name', 'Mobile'],
      columns: {
        firstName: ['Preferred Name', 'First Name'],
        lastName: ['Last Name'],
        email: ['Email'],
        phone: ['Mobile', 'Phone'],
        gender: ['Gender'],
      },
    },
    own('contacts'),
  ],
  giving: [
    {
      name: 'Breeze',
      signature: ['Person ID', 'First Name', 'Last Name', 'Fund(s)', 'Amount', 'Date'],
      columns: { date: ['Date'], amount: ['Amount'], fund: ['Fund(s)'], method: ['Method'], reference: ['Check Number'], firstName: ['First Name'], lastName: ['Last Name'] },
      majorAmounts: true,
      dates: 'month-first',
    },
    own('giving'),
  ],
  groups: [own('groups')],
};

export const headerKey = (header: string) => header.toLowerCase().replace(/[^a-z0-9]/g, '');

/** `--map` values: `column=field`, the field one of the kind's. */
export function parseMaps(kind: ImportKind, maps: string[]): Map<string, string> {
  const out = new Map<string, string>();
  for (const map of maps) {
    const at = map.lastIndexOf('=');
    const column = map.slice(0, at).trim();
    const field = map.slice(at + 1).trim();
    if (at < 1 || !column || !field) throw new MappingError(`--map takes column=field, got "${map}"`);
    const known = FIELDS[kind].find((f) => f.toLowerCase() === field.toLowerCase());
    if (!known) throw new MappingError(`--map ${map}: ${kind} imports take the fields ${FIELDS[kind].join(', ')}`);
    out.set(headerKey(column), known);
  }
  return out;
}

export class MappingError extends Error {}

export interface RowMapper {
  format: string;
  majorAmounts: boolean;
  dates?: Format['dates'];
  families?: Format['families'];
  /** Which header feeds which field, for the summary. */
  used: Record<string, string[]>;
  map(record: Record<string, string>): Record<string, string>;
}

/**
 * The mapper of a file: its format recognised from the header (the first whose signature it
 * carries; Parish's own otherwise), with `--map` entries taking precedence. Refuses a header from
 * which the kind's required fields cannot come.
 */
export function mapperFor(kind: ImportKind, header: string[], maps: Map<string, string>): RowMapper {
  const present = new Map(header.map((h) => [headerKey(h), h]));
  const format = FORMATS[kind].find((f) => f.signature.length > 0 && f.signature.every((s) => present.has(headerKey(s)))) ?? FORMATS[kind].at(-1)!;
  const sources: Record<string, string[]> = {};
  for (const [field, columns] of Object.entries(format.columns)) {
    const found = columns.map((c) => present.get(headerKey(c))).filter((h): h is string => h !== undefined);
    if (found.length) sources[field] = found;
  }
  for (const [key, field] of maps) {
    const column = present.get(key);
    if (!column) throw new MappingError(`--map names the column "${key}", which the file's header does not have (header: ${header.join(', ')})`);
    // A mapped column is the field's first source; it is no longer a source of any other field.
    for (const f of Object.keys(sources)) sources[f] = sources[f].filter((c) => c !== column);
    sources[field] = [column, ...(sources[field] ?? [])];
  }
  const required = REQUIRED[kind].filter((fields) => !fields.some((f) => sources[f]?.length));
  if (required.length) {
    throw new MappingError(
      `The header (${header.join(', ')}) is not one Parish recognises for ${kind} (${FORMATS[kind].map((f) => f.name).join(', ')}) ` +
        `and gives no ${required.map((r) => r.join(' or ')).join(', ')}: name the columns with --map column=field`,
    );
  }
  const entries = Object.entries(sources).filter(([, cols]) => cols.length > 0);
  return {
    format: format.name,
    majorAmounts: format.majorAmounts ?? false,
    dates: format.dates,
    families: format.families,
    used: Object.fromEntries(entries),
    map(record) {
      const out: Record<string, string> = {};
      for (const [field, columns] of entries) {
        for (const column of columns) {
          const value = record[column]?.trim();
          if (value) {
            out[field] = value;
            break;
          }
        }
      }
      return out;
    },
  };
}

/** Fields (any one of each list) without which no row of the kind can be imported. */
const REQUIRED: Record<ImportKind, string[][]> = {
  contacts: [['firstName'], ['lastName']],
  giving: [['date'], ['amount'], ['fund']],
  groups: [['name'], ['category']],
};

/**
 * Family role words of other systems → the household roles (Planning Center has no role column;
 * Breeze writes Head of Household, Spouse, Adult, Child, Unassigned; ChurchCRM's default list is Head
 * of Household, Spouse, Child, Other Relative, Non Relative). Compared as headers are (letters and
 * digits, any case); a word not listed is passed on, for the import to refuse with its reason.
 */
const ROLE_WORDS: Record<string, 'Head' | 'Spouse' | 'Child' | 'Other'> = Object.fromEntries(
  Object.entries({
    Head: ['Head', 'Head of Household', 'Household Head', 'Head of Family', 'Family Head', 'Primary', 'Primary Contact', 'Householder'],
    Spouse: ['Spouse', 'Wife', 'Husband', 'Partner'],
    Child: ['Child', 'Son', 'Daughter', 'Dependent', 'Dependant', 'Kid'],
    Other: ['Other', 'Adult', 'Other Relative', 'Relative', 'Non Relative', 'Nonrelative', 'Unassigned', 'Guest', 'Member', 'Other Adult', 'Grandparent', 'Grandchild'],
  }).flatMap(([role, words]) => words.map((w) => [headerKey(w), role as 'Head' | 'Spouse' | 'Child' | 'Other'])),
);

export function householdRole(word: string): string {
  return ROLE_WORDS[headerKey(word)] ?? word;
}

const YES = new Set(['true', 'yes', 'y', '1', 'x', 'primary', 'primarycontact']);

/**
 * Planning Center's `Household Primary Contact`: a yes-like value, or the name of the row's own
 * person ("Daniel Okello"), marks the household's primary contact.
 */
export function isHouseholdPrimary(value: string, fields: { firstName?: string; lastName?: string }): boolean {
  const key = headerKey(value);
  if (YES.has(key)) return true;
  const name = headerKey(`${fields.firstName ?? ''}${fields.lastName ?? ''}`);
  return name !== '' && key === name;
}
