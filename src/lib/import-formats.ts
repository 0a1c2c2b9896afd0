/**
 * The ONE set of header mappings and row rules of the imports (issue 34): the HTTP contacts import
 * (JSON and text/csv), `parish import` and the console's import wizard all go through it.
 *
 * Header mappings: the column sets recognised per kind of import, Parish's own headers and the
 * exports of other church systems, told apart by the headers they carry. A recognised header is
 * translated to the fields of the HTTP imports (api-contract §5 and the finance and groups
 * imports); the CLI's `--map column=field` adds or overrides columns. Headers compare
 * case-insensitively ignoring everything but letters and digits ("Cell Phone", "cell_phone" and
 * "CellPhone" are one).
 *
 * Row rules (contactRow): gender words and letters, dates as those systems write them, email and
 * phone cleanup, family role words and the families' keys; blank records are no rows (isBlankRecord).
 */

export type ImportKind = 'contacts' | 'giving' | 'groups';

/** The fields each kind of import takes (the HTTP import's row). */
export const FIELDS: Record<ImportKind, readonly string[]> = {
  contacts: ['firstName', 'lastName', 'email', 'phone', 'gender', 'dateOfBirth', 'street', 'city', 'country', 'householdKey', 'householdRole'],
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
  /** How the export writes dates other than YYYY-MM-DD (1/7/2025); without it only an unambiguous one is read. */
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
        dateOfBirth: ['Birthdate', 'Birthday'],
        street: ['Home Address Street Line 1', 'Home Address Street', 'Home Address Line 1', 'Home Street', 'Home Address'],
        city: ['Home Address City', 'Home City'],
        country: ['Home Address Country', 'Home Address Country Code', 'Home Country'],
        householdKey: ['Household ID'],
        // Not a field of the HTTP import: the primary contact is the household's Head (see householdPrimary).
        householdPrimary: ['Household Primary Contact'],
      },
      families: {},
      dates: 'month-first',
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
        dateOfBirth: ['Birth Date', 'Birthdate'],
        street: ['Address1', 'Address 1', 'Address'],
        city: ['City'],
        country: ['Country'],
        householdKey: ['Family ID', 'Family'],
        householdRole: ['Family Role'],
      },
      families: { noKey: ['0'] },
      dates: 'month-first',
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
        dateOfBirth: ['Birthdate', 'Birthday'],
        street: ['Street Address', 'Address'],
        city: ['City'],
        country: ['Country'],
        householdKey: ['Family ID', 'Family'],
        householdRole: ['Family Role'],
      },
      families: {},
      dates: 'month-first',
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
        dateOfBirth: ['Birthday', 'Birth Date', 'Date of Birth'],
        street: ['Home Address', 'Address', 'Street'],
        city: ['Home City', 'City'],
        country: ['Home Country', 'Country'],
      },
      dates: 'day-first',
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
 * which the kind's required fields cannot come, unless `lenient` (the HTTP import, which reports
 * the missing fields row by row).
 */
export function mapperFor(kind: ImportKind, header: string[], maps: Map<string, string> = new Map(), { lenient = false } = {}): RowMapper {
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
  if (required.length && !lenient) {
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

/**
 * A JSON row (Parish's own field names, compared as headers are) as the fields of the kind; values
 * other than strings are kept as they are, for the import's rules to refuse.
 */
export function ownFields(kind: ImportKind, record: Record<string, unknown>): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(record ?? {})) {
    const field = FIELD_BY_KEY[kind].get(headerKey(key));
    if (field && out[field] === undefined) out[field] = value;
  }
  return out;
}

const FIELD_BY_KEY = Object.fromEntries(
  Object.entries(FIELDS).map(([kind, fields]) => [kind, new Map(fields.map((f) => [headerKey(f), f]))]),
) as Record<ImportKind, Map<string, string>>;

/** A record with no value at all (a line of separators and spaces) is no row, not a failed one. */
export function isBlankRecord(record: Record<string, unknown>): boolean {
  return Object.values(record).every((v) => v === undefined || v === null || (typeof v === 'string' && v.trim() === ''));
}

/** Gender as other systems write it (M/F, any case, man/woman) → Male/Female; anything else passed on, for the import to refuse. */
const GENDER_WORDS: Record<string, 'Male' | 'Female'> = {
  m: 'Male', male: 'Male', man: 'Male', masculine: 'Male',
  f: 'Female', female: 'Female', woman: 'Female', feminine: 'Female',
};

export function genderWord(value: string): string {
  return GENDER_WORDS[headerKey(value)] ?? value;
}

const MONTHS = ['jan', 'feb', 'mar', 'apr', 'may', 'jun', 'jul', 'aug', 'sep', 'oct', 'nov', 'dec'];

/**
 * A date as those systems export it → YYYY-MM-DD: `1965-09-30`, `1965/09/30`, a timestamp
 * (`1965-09-30T00:00:00Z`), `9/30/1965` (month first) or `30/9/1965` (day first) by the format's
 * `order` (without one, only when a part above 12 tells), `Sep 30, 1965` and `30 September 1965`.
 * Anything else is passed on, for the import to refuse with its reason.
 */
export function isoDate(value: string, order?: 'month-first' | 'day-first'): string {
  const text = value.trim();
  const pad = (n: string | number) => String(n).padStart(2, '0');
  let m = /^(\d{4})[-/.](\d{1,2})[-/.](\d{1,2})(?:[T ][\d:.]+(?:Z|[+-]\d{2}:?\d{2})?)?$/.exec(text);
  if (m) return `${m[1]}-${pad(m[2])}-${pad(m[3])}`;
  m = /^(\d{1,2})[/.-](\d{1,2})[/.-](\d{4})$/.exec(text);
  if (m) {
    const [a, b] = [Number(m[1]), Number(m[2])];
    const monthFirst = order ? order === 'month-first' : b > 12 && a <= 12 ? true : a > 12 && b <= 12 ? false : undefined;
    if (monthFirst === undefined) return value;
    const [month, day] = monthFirst ? [m[1], m[2]] : [m[2], m[1]];
    return `${m[3]}-${pad(month)}-${pad(day)}`;
  }
  const month = (word: string) => MONTHS.indexOf(word.slice(0, 3).toLowerCase()) + 1;
  m = /^([A-Za-z]{3,9})\.? (\d{1,2}),? (\d{4})$/.exec(text);
  if (m && month(m[1])) return `${m[3]}-${pad(month(m[1]))}-${pad(m[2])}`;
  m = /^(\d{1,2}) ([A-Za-z]{3,9})\.?,? (\d{4})$/.exec(text);
  if (m && month(m[2])) return `${m[3]}-${pad(month(m[2]))}-${pad(m[1])}`;
  return value;
}

/** `mailto:` and angle brackets dropped (`<a@b.org>`), surrounding spaces trimmed. */
export function cleanEmail(value: string): string {
  return value.trim().replace(/^mailto:/i, '').replace(/^<(.*)>$/, '$1').trim();
}

/** Runs of spaces collapsed; a spreadsheet's leading apostrophe (`'0772…`) dropped. */
export function cleanPhone(value: string): string {
  return value.trim().replace(/^'/, '').replace(/\s+/g, ' ');
}

/**
 * The row rules of a contacts row (fields as a mapper or ownFields gives them), whatever the
 * source: strings trimmed and empty ones absent; gender words, dates, emails and phones cleaned
 * (see above); role words ("head of household", "son") become household roles, in any format.
 * Other systems' families (`format.families`): Planning Center's primary contact is the Head (the
 * others Other, unless a role column says more), a family-less row drops its role (in Parish's own
 * format a role without a key stays a row error), ChurchCRM's family 0 is no family. Values other than strings are left for the import to refuse.
 */
export function contactRow(fields: Record<string, unknown>, format: Pick<RowMapper, 'dates' | 'families'> = {}): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [field, value] of Object.entries(fields)) {
    if (value === undefined || value === null) continue;
    const text = typeof value === 'string' ? value.trim() : value;
    if (text !== '') out[field] = text;
  }
  const str = (field: string) => (typeof out[field] === 'string' ? (out[field] as string) : undefined);
  const rules: Record<string, (v: string) => string> = {
    gender: genderWord,
    dateOfBirth: (v) => isoDate(v, format.dates),
    email: cleanEmail,
    phone: cleanPhone,
    householdRole,
  };
  for (const [field, rule] of Object.entries(rules)) {
    const value = str(field);
    if (value === undefined) continue;
    const clean = rule(value);
    if (clean === '') delete out[field];
    else out[field] = clean;
  }
  const primary = str('householdPrimary');
  delete out.householdPrimary;
  if (!format.families) return out;
  const key = str('householdKey');
  if (key !== undefined && format.families.noKey?.includes(key)) delete out.householdKey;
  if (out.householdKey === undefined) delete out.householdRole;
  else if (out.householdRole === undefined && primary && isHouseholdPrimary(primary, { firstName: str('firstName'), lastName: str('lastName') })) out.householdRole = 'Head';
  return out;
}
