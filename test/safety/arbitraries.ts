import fc from 'fast-check';

/**
 * fast-check arbitraries built from the JSON schemas of the OpenAPI document: valid values (with
 * their boundaries), invalid ones (wrong types, out of range, NUL, huge, deep), and for id-shaped
 * fields the ids of the caller's tenant, of another tenant, and ids that exist nowhere.
 */
export type Schema = {
  type?: string | string[]; enum?: unknown[]; const?: unknown; format?: string; pattern?: string;
  minLength?: number; maxLength?: number; minimum?: number; maximum?: number; exclusiveMinimum?: number; exclusiveMaximum?: number;
  items?: Schema; minItems?: number; maxItems?: number; properties?: Record<string, Schema>; required?: string[];
  additionalProperties?: boolean | Schema; anyOf?: Schema[]; oneOf?: Schema[]; allOf?: Schema[]; nullable?: boolean;
};

export interface IdPool { own: number[]; foreign: number[] }

const NUL = fc.constantFrom('a\u0000b', '\u0000');
const UNICODE = fc.constantFrom('Zoë Ørsted', '日本語の名前', '𝔘𝔫𝔦𝔠𝔬𝔡𝔢 😀', 'ا ب ت', '\u202Eevil', 'e\u0301', '  padded  ', '\ud800');
const HOSTILE = fc.constantFrom("' OR 1=1 --", '%', '_', '\\', '../../etc/passwd', '<script>x</script>', '{{firstName}}', '$1', 'NaN', 'null', '-0');

/** Junk of any JSON type, some of it large or deep. */
export function junk(): fc.Arbitrary<unknown> {
  return fc.oneof(
    { weight: 4, arbitrary: fc.jsonValue({ maxDepth: 2 }) },
    { weight: 1, arbitrary: fc.constantFrom(null, true, 0, -1, 1.5, 2 ** 31, 2 ** 63, -(2 ** 53), 1e308, '', 'abc', [], {}) },
    { weight: 1, arbitrary: NUL },
    { weight: 1, arbitrary: fc.integer({ min: 1000, max: 20000 }).map((n) => 'x'.repeat(n)) },
    { weight: 1, arbitrary: fc.integer({ min: 20, max: 200 }).map((n) => deep(n)) },
  );
}

function deep(n: number): unknown {
  let v: unknown = 1;
  for (let i = 0; i < n; i++) v = i % 2 ? [v] : { a: v };
  return v;
}

export function idArb(ids: IdPool): fc.Arbitrary<number | string> {
  return fc.oneof(
    { weight: 5, arbitrary: fc.constantFrom(...ids.own) },
    { weight: 3, arbitrary: fc.constantFrom(...ids.foreign) },
    { weight: 1, arbitrary: fc.constantFrom(0, -1, 2 ** 31, Number.MAX_SAFE_INTEGER, 987654321) },
  );
}

const isIdName = (name: string) => /(^id$|Id$)/.test(name);
const isIdsName = (name: string) => /Ids$|^ids$/.test(name);

function typesOf(s: Schema): string[] {
  if (Array.isArray(s.type)) return s.type;
  if (s.type) return [s.type];
  if (s.properties) return ['object'];
  return [];
}

function stringArb(s: Schema): fc.Arbitrary<string> {
  if (s.format === 'date') {
    return fc.oneof(
      fc.date({ min: new Date('1900-01-01'), max: new Date('2100-12-31'), noInvalidDate: true }).map((d) => d.toISOString().slice(0, 10)),
      fc.constantFrom('0001-01-01', '9999-12-31', '2026-02-29', '2024-02-29', '2026-13-01', '0000-01-01', '2026-1-1', '20260101', '1969-12-31'),
    );
  }
  if (s.format === 'date-time') return fc.constantFrom('2026-03-01T10:00:00Z', '2026-03-01T10:00:00.000+03:00', '9999-12-31T23:59:59Z', '2026-03-01', 'yesterday');
  if (s.format === 'email') return fc.oneof(fc.emailAddress(), fc.constantFrom('a@b.co', 'not-an-email', 'UPPER@EXAMPLE.ORG', `${'x'.repeat(250)}@e.org`));
  if (s.format === 'uri' || s.format === 'url') return fc.constantFrom('https://example.org/hook', 'http://127.0.0.1:1/x', 'ftp://x', 'not a url');
  const max = Math.min(s.maxLength ?? 300, 300);
  const min = s.minLength ?? 0;
  return fc.oneof(
    { weight: 4, arbitrary: fc.string({ minLength: min, maxLength: Math.max(min, Math.min(max, 40)) }) },
    { weight: 1, arbitrary: fc.string({ unit: 'grapheme', minLength: min, maxLength: Math.max(min, Math.min(max, 20)) }) },
    { weight: 1, arbitrary: UNICODE },
    { weight: 1, arbitrary: HOSTILE },
    { weight: 1, arbitrary: NUL },
    { weight: 1, arbitrary: fc.constantFrom('x'.repeat(s.maxLength ?? 10000), 'x'.repeat((s.maxLength ?? 10000) + 1), 'x'.repeat(min), 'x'.repeat(Math.max(0, min - 1))) },
  );
}

function numberArb(s: Schema, integer: boolean): fc.Arbitrary<number> {
  const lo = s.minimum ?? (s.exclusiveMinimum !== undefined ? s.exclusiveMinimum + 1 : -1000);
  const hi = Math.min(s.maximum ?? (s.exclusiveMaximum !== undefined ? s.exclusiveMaximum - 1 : 100000), Number.MAX_SAFE_INTEGER);
  const inRange = integer ? fc.integer({ min: Math.max(lo, -(2 ** 31)), max: Math.min(hi, 2 ** 31) }) : fc.double({ min: lo, max: hi, noNaN: true });
  return fc.oneof({ weight: 4, arbitrary: inRange }, { weight: 1, arbitrary: fc.constantFrom(lo, hi, lo - 1, hi + 1, 0, -1, 1.5, 2 ** 53) });
}

/** A value for `schema`, mostly valid; `junkRate` of the nodes replaced by junk. */
export function fromSchema(schema: Schema, ids: IdPool, name = '', depth = 0, junkRate = 8): fc.Arbitrary<unknown> {
  const valid = validFrom(schema, ids, name, depth, junkRate);
  return fc.oneof({ weight: junkRate, arbitrary: valid }, { weight: 1, arbitrary: junk() });
}

function validFrom(s: Schema, ids: IdPool, name: string, depth: number, junkRate: number): fc.Arbitrary<unknown> {
  if (s.const !== undefined) return fc.constant(s.const);
  if (s.enum) return fc.constantFrom(...s.enum);
  const alternatives = s.anyOf ?? s.oneOf;
  if (alternatives?.length) return fc.oneof(...alternatives.map((a) => validFrom(a, ids, name, depth, junkRate)));
  if (s.allOf?.length) return validFrom(Object.assign({}, ...s.allOf), ids, name, depth, junkRate);
  const types = typesOf(s);
  if (types.length === 0) return fc.jsonValue({ maxDepth: 2 });
  return fc.oneof(...types.map((t): fc.Arbitrary<unknown> => {
    switch (t) {
      case 'null': return fc.constant(null);
      case 'boolean': return fc.boolean();
      case 'integer': return isIdName(name) ? idArb(ids) : numberArb(s, true);
      case 'number': return numberArb(s, false);
      case 'string': return stringArb(s);
      case 'array': {
        const item = s.items ?? {};
        const itemArb = isIdsName(name) ? idArb(ids) : fromSchema(item, ids, '', depth + 1, junkRate);
        const maxLength = Math.min(s.maxItems ?? 5, 5);
        return fc.oneof(
          { weight: 6, arbitrary: fc.array(itemArb, { minLength: Math.min(s.minItems ?? 0, maxLength), maxLength }) },
          { weight: 1, arbitrary: fc.constant(s.maxItems !== undefined ? Array.from({ length: s.maxItems + 1 }, (_, i) => i + 1) : Array.from({ length: 2000 }, (_, i) => i + 1)) },
        );
      }
      case 'object': {
        if (depth > 4) return fc.constant({});
        const props = s.properties ?? {};
        const required = s.required ?? [];
        const record: Record<string, fc.Arbitrary<unknown>> = {};
        for (const [key, sub] of Object.entries(props)) record[key] = fromSchema(sub, ids, key, depth + 1, junkRate);
        const keys = Object.keys(props);
        const base = keys.length
          ? fc.record(record, { requiredKeys: keys.filter((k) => required.includes(k)) })
          : fc.dictionary(fc.string({ maxLength: 8 }), fc.jsonValue({ maxDepth: 2 }), { maxKeys: 4 });
        // Now and then drop a required key or add an unknown one.
        return fc.tuple(base, fc.nat(9)).map(([value, roll]) => {
          const out = { ...(value as Record<string, unknown>) };
          if (roll === 0 && required.length) delete out[required[0]];
          if (roll === 1) out.unknownField = 'ignored';
          if (roll === 2) out.tenantId = 1;
          return out;
        });
      }
      default: return fc.jsonValue({ maxDepth: 1 });
    }
  }));
}

/**
 * A VALID value for `schema` with every optional field present and each leaf at one of its bounds
 * (smallest or largest number, shortest or longest string, earliest or latest date, fewest or most
 * items): the combinations of valid fields at their limits that single-field junk never tries (a
 * pledge of the largest amount, weekly, over the longest span, is one). `side` 'high' puts every leaf
 * at its largest (and a span's start, a field named start… or from…, at its earliest: the widest
 * span), 'low' at its smallest, and none chooses per leaf. Ids come from `named` when the field names
 * a fixture (contactId → named.contact), else from the caller's own ids.
 */
export type Side = 'low' | 'high';
export function validAtBounds(s: Schema, ids: IdPool & { named?: Record<string, number> }): fc.Arbitrary<unknown> {
  return fc.oneof(atBounds(s, ids, '', 0, 'high'), atBounds(s, ids, '', 0, 'low'), atBounds(s, ids, '', 0));
}

function pick<T>(side: Side | undefined, low: T, high: T): fc.Arbitrary<T> {
  return side === undefined ? fc.constantFrom(low, high) : fc.constant(side === 'low' ? low : high);
}

function atBounds(s: Schema, ids: IdPool & { named?: Record<string, number> }, name: string, depth: number, side?: Side): fc.Arbitrary<unknown> {
  if (s.const !== undefined) return fc.constant(s.const);
  if (s.enum) return fc.constantFrom(...s.enum);
  const alternatives = s.anyOf ?? s.oneOf;
  if (alternatives?.length) return fc.oneof(...alternatives.map((a) => atBounds(a, ids, name, depth, side)));
  if (s.allOf?.length) return atBounds(Object.assign({}, ...s.allOf), ids, name, depth, side);
  const types = typesOf(s).filter((t) => t !== 'null');
  if (types.length === 0) return fc.constant(typesOf(s).includes('null') ? null : {});
  const named = (id: string) => ids.named?.[id.replace(/Ids?$/, '')];
  const spanStart = /^(start|from)/i.test(name);
  const dateSide = side === undefined ? undefined : spanStart === (side === 'high') ? 'low' : 'high';
  return fc.oneof(...types.map((t): fc.Arbitrary<unknown> => {
    switch (t) {
      case 'boolean': return fc.boolean();
      case 'integer':
      case 'number': {
        if (t === 'integer' && isIdName(name)) return named(name) !== undefined ? fc.constant(named(name)) : fc.constantFrom(...ids.own);
        const lo = s.minimum ?? (s.exclusiveMinimum !== undefined ? s.exclusiveMinimum + 1 : 0);
        const hi = Math.min(s.maximum ?? (s.exclusiveMaximum !== undefined ? s.exclusiveMaximum - 1 : 2 ** 31 - 1), Number.MAX_SAFE_INTEGER);
        return pick(side, lo, hi);
      }
      case 'string': {
        if (s.format === 'date') return pick(dateSide, '0001-01-01', '9999-12-31');
        if (s.format === 'date-time') return pick(dateSide, '0001-01-01T00:00:00Z', '9999-12-31T23:59:59Z');
        if (s.format === 'email') return pick(side, 'a@b.co', `${'x'.repeat(Math.max(1, Math.min(s.maxLength ?? 254, 254) - 6))}@e.org`);
        if (s.format === 'uri' || s.format === 'url') return fc.constant('https://example.org/hook');
        if (s.pattern) return fc.stringMatching(new RegExp(s.pattern)).filter((v) => v.length >= (s.minLength ?? 0) && v.length <= (s.maxLength ?? Infinity));
        const min = Math.max(s.minLength ?? 0, 1);
        return pick(side, 'x'.repeat(min), 'x'.repeat(Math.max(min, Math.min(s.maxLength ?? 200, 20000))));
      }
      case 'array': {
        const item = s.items ?? {};
        const itemArb = isIdsName(name) ? (named(name) !== undefined ? fc.constant(named(name)) : fc.constantFrom(...ids.own)) : atBounds(item, ids, '', depth + 1, side);
        const fewest = s.minItems ?? 0;
        const most = Math.max(fewest, Math.min(s.maxItems ?? 20, 50));
        return pick(side, fewest, most).chain((n) => fc.array(itemArb, { minLength: n, maxLength: n }));
      }
      case 'object': {
        if (depth > 4) return fc.constant({});
        const record: Record<string, fc.Arbitrary<unknown>> = {};
        for (const [key, sub] of Object.entries(s.properties ?? {})) record[key] = atBounds(sub, ids, key, depth + 1, side);
        return fc.record(record);
      }
      default: return fc.constant(null);
    }
  }));
}
