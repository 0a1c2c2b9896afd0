import { Type, type Static } from 'typebox';
import { Body, Id, Instant, Paginated, PageQueryProps } from '../../lib/schemas.js';
import { ContactListItem, ContactSchema } from '../contacts/contacts.schemas.js';

export const MAX_MERGE_SOURCES = 10;

export const EraseBody = Body(
  { confirm: Type.Boolean({ description: 'Must be true: erasing cannot be undone' }) },
  { description: 'Erases the person (see the route description); 400 unless confirm is true' },
);
export type EraseBody = Static<typeof EraseBody>;

export const EraseResult = Type.Object({ erased: Type.Boolean() });

export const MergeBody = Body({
  sourceIds: Type.Array(Id, {
    minItems: 1,
    maxItems: MAX_MERGE_SOURCES,
    description: 'Contacts merged into the one in the path, then deleted (repeated ids count once)',
  }),
});
export type MergeBody = Static<typeof MergeBody>;

const Rows = Type.Array(Type.Unknown());

/**
 * The export document: the contact as GET /api/crm/contacts/:id shows it, one array per table of
 * the tenant that references the contact (named sections below; further tables appear under their
 * camel-cased name), and the timeline of changes about the person.
 */
export const ContactExport = Type.Object(
  {
    exportedAt: Instant,
    contact: ContactSchema,
    memberships: Rows,
    requests: Rows,
    attendance: Rows,
    registrations: Rows,
    activities: Rows,
    tasks: Rows,
    contributions: Rows,
    pledges: Rows,
    timeline: Rows,
  },
  { additionalProperties: Rows },
);

export const DuplicatesQuery = Type.Object(PageQueryProps);
export type DuplicatesQuery = Static<typeof DuplicatesQuery>;

export const DuplicatePair = Type.Object({
  contacts: Type.Array(ContactListItem, { minItems: 2, maxItems: 2, description: 'Lower id first' }),
  reason: Type.Union([Type.Literal('email'), Type.Literal('phone'), Type.Literal('name')], { description: 'The strongest shared key: email, then phone, then name' }),
  reasons: Type.Array(Type.String(), { description: 'Every key the two share' }),
  score: Type.Number({ description: 'email 0.9, phone 0.8, name 0.6; +0.05 for each further shared key; at most 1' }),
});
export const DuplicatePage = Paginated(DuplicatePair);
