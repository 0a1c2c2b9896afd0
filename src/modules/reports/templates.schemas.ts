import { Type, type Static } from 'typebox';
import { REPORT_FIELD_TYPES, REPORT_FREQUENCIES } from '../../db/schema/reports.js';
import { Body, DateString, Id, Instant, LongText, Name, Nullable, PageQueryProps, StringEnum } from '../../lib/schemas.js';

/** Wire format of /api/reports/templates and their submissions (modules-contract §4). */

const Ref = Type.Object({ id: Type.Integer(), name: Type.String() });

export const FIELD_KEY_PATTERN = '^[A-Za-z][A-Za-z0-9_]{0,49}$';

export const ReportFieldSchema = Type.Object({
  key: Type.String({ pattern: FIELD_KEY_PATTERN, description: 'Letters, digits and _, starting with a letter; unique in the template' }),
  label: Name,
  type: StringEnum(REPORT_FIELD_TYPES),
  required: Type.Boolean({ default: false }),
  options: Type.Optional(Nullable(Type.Array(Type.String({ minLength: 1, maxLength: 200 }), { minItems: 1, maxItems: 100, description: 'The choices of a `select` field (required for it; ignored for other types)' }))),
});

const FieldsArray = Type.Array(ReportFieldSchema, { minItems: 1, maxItems: 50 });

export const TemplateSchema = Type.Object({
  id: Type.Integer(),
  name: Type.String(),
  description: Nullable(Type.String()),
  groupCategoryId: Type.Integer(),
  groupCategory: Ref,
  frequency: StringEnum(REPORT_FREQUENCIES),
  fields: Type.Array(
    Type.Object({ key: Type.String(), label: Type.String(), type: StringEnum(REPORT_FIELD_TYPES), required: Type.Boolean(), options: Nullable(Type.Array(Type.String())) }),
  ),
  isActive: Type.Boolean(),
  createdAt: Instant,
  updatedAt: Instant,
});
export type TemplateItem = Static<typeof TemplateSchema>;

export const CreateTemplateBody = Body({
  name: Name,
  description: Type.Optional(Nullable(LongText)),
  groupCategoryId: Id,
  frequency: Type.Optional(StringEnum(REPORT_FREQUENCIES, { description: 'Default Weekly' })),
  fields: FieldsArray,
  isActive: Type.Optional(Type.Boolean()),
});
export type CreateTemplateBody = Static<typeof CreateTemplateBody>;

export const UpdateTemplateBody = Body({
  name: Type.Optional(Name),
  description: Type.Optional(Nullable(LongText)),
  groupCategoryId: Type.Optional(Id),
  frequency: Type.Optional(StringEnum(REPORT_FREQUENCIES)),
  fields: Type.Optional(FieldsArray),
  isActive: Type.Optional(Type.Boolean()),
});
export type UpdateTemplateBody = Static<typeof UpdateTemplateBody>;

export const ListTemplatesQuery = Type.Object({
  isActive: Type.Optional(Type.Boolean()),
  groupCategoryId: Type.Optional(Id),
  ...PageQueryProps,
});
export type ListTemplatesQuery = Static<typeof ListTemplatesQuery>;

const FieldValue = Type.Union([Type.Number(), Type.String({ maxLength: 5000 }), Type.Boolean(), Type.Null()]);

export const SubmissionSchema = Type.Object({
  id: Type.Integer(),
  template: Ref,
  group: Ref,
  period: Type.String({ description: 'The first day of the week (Sunday) or month reported' }),
  values: Type.Record(Type.String(), FieldValue),
  submittedBy: Nullable(Type.Object({ id: Type.Integer(), username: Type.String() })),
  submittedAt: Instant,
  updatedAt: Instant,
});
export type SubmissionItem = Static<typeof SubmissionSchema>;

export const CreateSubmissionBody = Body({
  groupId: Id,
  period: Type.Optional(DateString),
  values: Type.Record(Type.String(), Type.Unknown(), { description: 'fieldKey: value; validated against the template (400 naming the field)' }),
});
export type CreateSubmissionBody = Static<typeof CreateSubmissionBody>;

export const UpdateSubmissionBody = Body({
  values: Type.Record(Type.String(), Type.Unknown(), { description: 'Replaces every value; validated against the template' }),
});
export type UpdateSubmissionBody = Static<typeof UpdateSubmissionBody>;

const ScopeProps = {
  groupId: Type.Optional(Id),
  includeDescendants: Type.Optional(Type.Boolean({ default: true })),
  from: Type.Optional(DateString),
  to: Type.Optional(DateString),
};

export const ListSubmissionsQuery = Type.Object({ ...ScopeProps, ...PageQueryProps });
export type ListSubmissionsQuery = Static<typeof ListSubmissionsQuery>;

export const RollupQuery = Type.Object(ScopeProps);
export type RollupQuery = Static<typeof RollupQuery>;

export const RollupSchema = Type.Object({
  template: Ref,
  from: Type.String(),
  to: Type.String(),
  periods: Type.Array(
    Type.Object({
      period: Type.String(),
      submitted: Type.Integer(),
      missing: Type.Array(Ref),
      sums: Type.Record(Type.String(), Type.Number()),
    }),
  ),
});
export type Rollup = Static<typeof RollupSchema>;
