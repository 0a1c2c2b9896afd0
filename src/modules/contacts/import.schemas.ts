import { Type, type Static } from 'typebox';
import { Compile } from 'typebox/compile';
import { Body, DateString, Email, Name, Nullable } from '../../lib/schemas.js';
import { FIELDS } from '../../lib/import-formats.js';
import { HOUSEHOLD_ROLES } from '../../db/schema/households.js';
import { StringEnum } from '../../lib/schemas.js';
import { Gender } from './contacts.schemas.js';

/**
 * POST /api/crm/contacts/import (api-contract §5): JSON {contacts: [...]} or text/csv with the same
 * columns, or with another system's headers (src/lib/import-formats.ts, shared with `parish import`).
 */

export const MAX_IMPORT_ROWS = 10_000;
export const IMPORT_COLUMNS = FIELDS.contacts;

const Cell = (description: string) => Type.Optional(Type.String({ description }));

/**
 * The documented row: only "every value is a string" is checked for the whole request, so one bad
 * row never rejects the others; the rules of ImportRow are applied per row.
 */
export const ImportRowInput = Body({
  firstName: Cell('Required, 1–200 characters'),
  lastName: Cell('Required, 1–200 characters'),
  phone: Cell('Up to 50 characters with at least one digit'),
  email: Cell('A valid email address'),
  gender: Cell('Male or Female (M, F, man, woman in any case are taken too)'),
  dateOfBirth: Cell('YYYY-MM-DD (also 1965/09/30, a timestamp, Sep 30 1965, or 9/30/1965 when a part above 12 tells the order)'),
  street: Cell('Up to 200 characters: with city and country, an address added to the person unless they have it already'),
  city: Cell('Up to 200 characters'),
  country: Cell('Up to 200 characters'),
  householdKey: Cell('Up to 200 characters: rows sharing a key end in one household, created (named by the default rule) or found by the key'),
  householdRole: Cell('Head, Spouse, Child or Other (with a householdKey; default Other for a new member, unchanged for a current one)'),
});

export const ImportJsonBody = Type.Object({
  contacts: Type.Array(ImportRowInput, { maxItems: MAX_IMPORT_ROWS, description: `At most ${MAX_IMPORT_ROWS} rows` }),
  dryRun: Type.Optional(Type.Boolean({ description: 'Match and count as the import would, writing nothing (also a query parameter)' })),
});

export const ImportQuery = Type.Object({
  dryRun: Type.Optional(Type.Boolean({ default: false, description: 'Match and count as the import would, writing nothing and recording no change' })),
  map: Type.Optional(Type.Union([Type.String({ maxLength: 400 }), Type.Array(Type.String({ maxLength: 400 }), { maxItems: 50 })], {
    description: 'CSV only, repeatable: `column=field` (as `parish import --map`): the column feeds the field, before the recognised headers; the file\'s format (its date order, its families) is still recognised from its header',
  })),
});

export const IMPORT_OUTCOMES = ['created', 'updated', 'unchanged', 'error'] as const;

export const ImportRowResult = Type.Object({
  row: Type.Integer({ description: 'Numbered from 1' }),
  outcome: StringEnum(IMPORT_OUTCOMES, { description: 'What the row does (a dry run: would do); a later row for a person an earlier row creates counts as updated' }),
  name: Type.String({ description: 'The person\'s first and last name as the row gives them (may be empty for a row in error)' }),
  message: Type.Optional(Type.String({ description: 'Why the row failed (outcome error)' })),
  contactId: Type.Optional(Type.Integer({ description: 'The person created, updated or matched (not in a dry run)' })),
});
export type ImportRowResult = Static<typeof ImportRowResult>;

/** GET /api/crm/contacts/import/formats: the header mappings, for the console's import wizard. */
export const ImportFormats = Type.Object({
  fields: Type.Array(Type.String(), { description: 'The import fields, in order' }),
  data: Type.Array(
    Type.Object({
      name: Type.String(),
      recognisedBy: Type.Array(Type.String(), { description: 'Headers that must all be present for a file to be this export (none: Parish\'s own, the fallback)' }),
      columns: Type.Record(Type.String(), Type.Array(Type.String()), { description: 'Field → its source headers, the first non-empty one taken; compared ignoring case, spaces and punctuation' }),
      dates: Nullable(StringEnum(['month-first', 'day-first'] as const, { description: 'How the export writes 1/7/2025; null: only an unambiguous date is read' })),
    }),
  ),
});
export type ImportFormats = Static<typeof ImportFormats>;

/** The per-row rules, shared by the JSON and the CSV form. */
export const ImportRow = Type.Object({
  firstName: Name,
  lastName: Name,
  phone: Type.Optional(Type.String({ minLength: 1, maxLength: 50, pattern: '[0-9]' })),
  email: Type.Optional(Email),
  gender: Type.Optional(Gender),
  dateOfBirth: Type.Optional(DateString),
  street: Type.Optional(Type.String({ maxLength: 200 })),
  city: Type.Optional(Type.String({ maxLength: 200 })),
  country: Type.Optional(Type.String({ maxLength: 200 })),
  householdKey: Type.Optional(Type.String({ minLength: 1, maxLength: 200 })),
  householdRole: Type.Optional(StringEnum(HOUSEHOLD_ROLES)),
});
export type ImportRow = Static<typeof ImportRow>;
export const ImportRowCheck = Compile(ImportRow);

export const ImportSummary = Type.Object({
  total: Type.Integer(),
  created: Type.Integer(),
  updated: Type.Integer(),
  unchanged: Type.Integer({ description: 'Rows matching a person who already has every value they carry (names, gender, date of birth, email, phone, address, household and role): nothing written, no change recorded' }),
  failed: Type.Integer(),
  errors: Type.Array(Type.Object({ row: Type.Integer({ description: 'Numbered from 1' }), message: Type.String() })),
  rows: Type.Array(ImportRowResult, { description: 'Every row\'s outcome, in row order (the wizard\'s per-row results)' }),
  households: Type.Array(Type.Object({ id: Type.Integer(), name: Type.String(), created: Type.Boolean() }), {
    description: 'Households the import created or added people to (empty in a dry run)',
  }),
});
export type ImportSummary = Static<typeof ImportSummary>;
