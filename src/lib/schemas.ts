import { Type, type Static, type TProperties, type TSchema } from 'typebox';

/** Shared wire-format building blocks; every module's schemas are made of these. */

export const ErrorSchema = Type.Object(
  { statusCode: Type.Integer(), message: Type.String(), error: Type.String() },
  { description: 'Every error: one human-readable message and the HTTP phrase' },
);

/** Error responses a route documents, e.g. `...errors(400, 401, 403, 404)`. */
export function errors<const C extends readonly number[]>(...codes: C): { [K in C[number]]: typeof ErrorSchema } {
  return Object.fromEntries(codes.map((c) => [c, ErrorSchema])) as { [K in C[number]]: typeof ErrorSchema };
}

/** The documented "no body" of a 204. */
export const NoContent = Type.Null({ description: 'No content' });

export const MAX_ID = Number.MAX_SAFE_INTEGER;
export const Id = Type.Integer({ minimum: 1, maximum: MAX_ID });
export const IdParams = Type.Object({ id: Id });
export type IdParams = Static<typeof IdParams>;

/** A calendar date; the pattern keeps year 0000 out (ajv's `date` format checks the day of month). */
export const DATE_PATTERN = '^(?!0000)[0-9]{4}-[0-9]{2}-[0-9]{2}$';
export const DateString = Type.String({ format: 'date', pattern: DATE_PATTERN });
export const Instant = Type.String({ format: 'date-time' });

export const Name = Type.String({ minLength: 1, maxLength: 200 });
export const ShortText = Type.String({ maxLength: 200 });
export const LongText = Type.String({ maxLength: 5000 });
export const Email = Type.String({ format: 'email', maxLength: 254 });
export const Phone = Type.String({ minLength: 1, maxLength: 50 });
export const Password = Type.String({ minLength: 8, maxLength: 256 });
export const MetaData = Type.Record(Type.String(), Type.Unknown(), { description: 'Free-form JSON object' });

/**
 * `T | null`. A scalar becomes a JSON type list (`type: ['string', 'null']`): one keyword, so the
 * validation message names the real rule, and no anyOf branch for query-string coercion to turn
 * null into "" or 0. Objects and unions stay an anyOf.
 */
export function Nullable<T extends TSchema>(schema: T) {
  const { type } = schema as unknown as { type?: unknown };
  if (typeof type === 'string' && type !== 'object' && type !== 'array') {
    return Type.Unsafe<Static<T> | null>({ ...schema, type: [type, 'null'] });
  }
  return Type.Union([schema, Type.Null()]);
}

export function StringEnum<const T extends readonly string[]>(values: T, options: { description?: string } = {}) {
  return Type.Enum(values as unknown as T[number][], options);
}

/** A request body: unknown properties are stripped (never stored), per api-contract §1. */
export function Body<T extends TProperties>(properties: T, options: { description?: string } = {}) {
  return Type.Object(properties, { ...options, additionalProperties: false });
}

export const PageQueryProps = {
  page: Type.Integer({ minimum: 1, maximum: 1_000_000, default: 1 }),
  limit: Type.Integer({ minimum: 1, maximum: MAX_ID, default: 20, description: 'Values above 100 are clamped to 100' }),
};
export const PageQuery = Type.Object(PageQueryProps);

/** The list envelope of api-contract §2. */
export function Paginated<T extends TSchema>(item: T) {
  return Type.Object({ data: Type.Array(item), total: Type.Integer(), page: Type.Integer(), limit: Type.Integer() });
}
