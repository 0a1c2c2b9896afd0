import { Type } from 'typebox';
import { Nullable, Paginated } from '../../lib/schemas.js';

/** Wire format of GET /api/reports and GET /api/reports/:key (modules-contract §4). */

export const ReportParameterSchema = Type.Object({
  key: Type.String(),
  type: Type.String({ description: 'date, integer, boolean, string or id' }),
  required: Type.Boolean(),
  default: Nullable(Type.Union([Type.String(), Type.Number(), Type.Boolean()])),
  options: Nullable(Type.Array(Type.String())),
  description: Type.Optional(Type.String()),
});

export const ReportCatalogItem = Type.Object({
  key: Type.String(),
  name: Type.String(),
  description: Type.String(),
  parameters: Type.Array(ReportParameterSchema),
  permissions: Type.Array(Type.String()),
});
export const ReportCatalog = Paginated(ReportCatalogItem);

export const ReportColumnSchema = Type.Object({
  key: Type.String(),
  label: Type.String(),
  type: Type.String({
    description:
      'string, integer, number, money (integer minor units of `currency`), percent (0–100), date, boolean; group/fund `{id, name}`, contact `{id, firstName, lastName}` and user `{id, username}` are objects in JSON and two CSV columns (id, name)',
  }),
});

export const ReportOutputSchema = Type.Object({
  key: Type.String(),
  name: Type.String(),
  parameters: Type.Record(Type.String(), Type.Unknown(), { description: 'The parameters as applied (defaults filled in)' }),
  columns: Type.Array(ReportColumnSchema),
  rows: Type.Array(Type.Record(Type.String(), Type.Unknown())),
  totals: Type.Record(Type.String(), Type.Unknown()),
  currency: Type.Optional(Type.String()),
});

export const ReportParams = Type.Object({ key: Type.String({ minLength: 1, maxLength: 100 }) });

export const ReportQuery = Type.Record(Type.String(), Type.String(), {
  description: 'from, to, groupId, includeDescendants (not for giving reports), format (json | csv) and the report\'s own parameters (see GET /api/reports); an unknown parameter is 400',
});
