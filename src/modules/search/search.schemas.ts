import { Type, type Static } from 'typebox';
import { Body, Id, Instant, Name, Nullable, PageQueryProps } from '../../lib/schemas.js';
import { ContactListItem } from '../contacts/contacts.schemas.js';

/** Wire format of /api/search (modules-contract §5). */

export const SEARCH_TYPES = ['contacts', 'groups', 'events', 'requests', 'tasks', 'users', 'households'] as const;
export type SearchType = (typeof SEARCH_TYPES)[number];

export const SearchQuery = Type.Object({
  q: Type.String({
    minLength: 2, maxLength: 100, pattern: '^[^\\u0000]*$',
    description: 'Accent- and case-insensitive fragment (2–100 characters once trimmed; %, _ and \\ match literally). A phone-shaped q (digits, spaces, + - . ( ), at least 3 digits) also matches phone digits.',
  }),
  types: Type.Optional(Type.String({
    maxLength: 200,
    description: `Comma list among ${SEARCH_TYPES.join(', ')}. Default: every type the caller may read. Naming a type the caller may not read is 403.`,
  })),
  limit: Type.Integer({ minimum: 1, maximum: 20, default: 5, description: 'Results per type' }),
});
export type SearchQuery = Static<typeof SearchQuery>;

export const SearchHit = Type.Object({
  id: Id,
  title: Type.String(),
  subtitle: Nullable(Type.String()),
  matchedOn: Type.String({ description: 'What matched: name, email, phone (contacts); name (groups, events); description (requests); title (tasks); username, email (users); name, member (households: the household\'s name or a member\'s)' }),
});
export type SearchHit = Static<typeof SearchHit>;

const Hits = Type.Optional(Type.Array(SearchHit));
const Total = Type.Optional(Type.Integer({ description: 'Every visible match of the type, beyond the limit' }));

export const SearchResult = Type.Object({
  q: Type.String(),
  results: Type.Object({ contacts: Hits, groups: Hits, events: Hits, requests: Hits, tasks: Hits, users: Hits, households: Hits }),
  totals: Type.Object({ contacts: Total, groups: Total, events: Total, requests: Total, tasks: Total, users: Total, households: Total }),
}, { description: 'Only the requested (or readable) types appear as keys' });

// ---- advanced contact search ----

export const CONDITION_FIELDS = [
  'firstName', 'lastName', 'gender', 'civilStatus', 'occupation', 'status', 'category', 'city', 'country',
  'age', 'dateOfBirth', 'birthdayInDays', 'memberOf', 'notMemberOf', 'role',
  'attendedWithinDays', 'notAttendedWithinDays', 'firstVisitWithinDays', 'gaveWithinDays', 'notGaveWithinDays', 'createdWithinDays',
] as const;
export type ConditionField = (typeof CONDITION_FIELDS)[number];

export const CONTACT_SORTS = ['lastName', '-lastName', 'firstName', '-firstName', 'createdAt', '-createdAt'] as const;
export type ContactSort = (typeof CONTACT_SORTS)[number];

export const Condition = Type.Object(
  {
    field: Type.String({ maxLength: 50, description: CONDITION_FIELDS.join(', ') }),
    operator: Type.String({ maxLength: 20, description: 'eq, neq, in, contains, startsWith, isEmpty, gt, lt, between (which ones a field takes: modules-contract §5)' }),
    value: Type.Optional(Type.Unknown({
      description: 'A string (eq, neq, contains, startsWith), an array of strings (in), a boolean or nothing (isEmpty: true = empty), a number or a YYYY-MM-DD date (age, dateOfBirth), [low, high] (between, inclusive), a number of days (…WithinDays, birthdayInDays: lt), a group id (memberOf, notMemberOf), a membership role (role)',
    })),
  },
  { additionalProperties: false },
);

/** The criteria of a search; also what a saved list stores. */
const criteriaProps = {
  match: Type.Optional(Type.Enum(['all', 'any'], { default: 'all' })),
  conditions: Type.Array(Condition, { minItems: 1, maxItems: 20 }),
  sort: Type.Optional(Type.Enum([...CONTACT_SORTS], { description: 'Default lastName (then first name, then id)' })),
};
export const Criteria = Body(criteriaProps);
export type Criteria = Static<typeof Criteria>;

export const AdvancedSearchBody = Body({
  ...criteriaProps,
  page: Type.Optional(PageQueryProps.page),
  limit: Type.Optional(PageQueryProps.limit),
});
export type AdvancedSearchBody = Static<typeof AdvancedSearchBody>;

export { ContactListItem };

// ---- saved lists ----

export const SavedListSchema = Type.Object({
  id: Id,
  name: Type.String(),
  criteria: Criteria,
  shared: Type.Boolean(),
  owner: Type.Object({ id: Id, username: Type.String() }),
  count: Nullable(Type.Integer({ description: 'Contacts matching now; null when the criteria hold conditions the caller may not read (giving without finance:read, attendance without attendance:read, memberships without groups:read)' })),
  createdAt: Instant,
  updatedAt: Instant,
});
export type SavedList = Static<typeof SavedListSchema>;

export const CreateSavedListBody = Body({
  name: Name,
  criteria: Criteria,
  shared: Type.Optional(Type.Boolean({ default: false, description: 'Shared lists are visible to everyone with contacts:read' })),
});
export type CreateSavedListBody = Static<typeof CreateSavedListBody>;

export const UpdateSavedListBody = Body({
  name: Type.Optional(Name),
  criteria: Type.Optional(Criteria),
  shared: Type.Optional(Type.Boolean({ description: 'Only the owner may change it' })),
});
export type UpdateSavedListBody = Static<typeof UpdateSavedListBody>;

export const ListsQuery = Type.Object({
  ...PageQueryProps,
  shared: Type.Optional(Type.Boolean({ description: 'true: only shared lists; false: only the caller\'s private lists' })),
});
export type ListsQuery = Static<typeof ListsQuery>;
