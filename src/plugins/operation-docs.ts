/**
 * The prose of one operation, kept in its module's `<module>.docs.ts` under the key `METHOD path`
 * (the path as registered: `GET /api/crm/contacts/:id`). The docs plugin merges it into the route's
 * schema when the route is registered, together with what the route itself declares.
 */
export interface OperationDoc {
  /** One line, imperative: "List contacts". */
  summary: string;
  /** What it does beyond the summary: rules, defaults, side effects. */
  description?: string;
  /** Which records the caller sees or may change through it (hierarchy, own records, tenant-wide). */
  visibility?: string;
  /** Notable errors: the reason for each status, which also becomes that response's description. */
  errors?: Partial<Record<number, string>>;
  /** A request body example (the docs test checks it against the body schema). */
  example?: unknown;
  /**
   * The query parameters as the document shows them, for a route whose querystring schema is
   * free-form (a record checked in the handler), which OpenAPI cannot express as parameters.
   */
  query?: { type: 'object'; properties: Record<string, Record<string, unknown>> };
}

export type ModuleDocs = Record<string, OperationDoc>;

/** The visibility rules the docs repeat, worded once (api-contract §4). */
export const VISIBILITY = {
  tenant: 'tenant-wide: every record of the caller\'s tenant (another tenant\'s record is 404).',
  hierarchyRead: 'groups the caller\'s place in the hierarchy makes visible: everything with `hierarchy:all`; otherwise the subtrees it leads, ' +
    'the groups it belongs to and public groups (events: those of visible groups, and events without a group). Not visible is 404.',
  hierarchyWrite: 'the group must lie inside a subtree the caller leads (or the caller holds `hierarchy:all`): visible but not writable is 403, not visible 404.',
  structure: 'tenant-wide structure: also needs `hierarchy:all` (403 without it).',
  own: 'only the caller\'s own records.',
} as const;
