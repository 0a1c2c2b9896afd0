import { VISIBILITY, type ModuleDocs } from '../../plugins/operation-docs.js';
import { CHECKOUT_FAILURES } from './checkins.service.js';

const read = `${VISIBILITY.hierarchyRead} Only services, sessions and records of groups in scope.`;
const write = VISIBILITY.hierarchyWrite;
const checkin = '`checkin:write` and a visible session (its group visible to the caller: a kiosk account, in no group, sees the sessions of public groups); no led subtree needed.';
/** Who a kiosk reaches (lookup.repository.ts reachablePerson): stated once, on the lookup and the check-in. */
export const KIOSK_REACH =
  'A caller without `contacts:read` (a kiosk: the seeded `Check-in` role holds `checkin:write` alone) reaches only the people the family lookup ' +
  '(`GET /api/attendance/checkins/lookup`) can return: Person contacts with status Active or Inactive, not erased, and not known only through ' +
  'Private groups (a person whose every active membership is in a Private group is left out). Any other contact id is 404 exactly as an id that does not exist. ' +
  'A caller with `contacts:read` may check in any contact of the tenant.';

/** OpenAPI prose of /api/attendance: services, sessions, records, headcounts, check-in (merged by the docs plugin). */
export const attendanceDocs: ModuleDocs = {
  'GET /api/attendance/services': { summary: 'List services', visibility: read },
  'POST /api/attendance/services': {
    summary: 'Create a recurring service',
    description: '`dayOfWeek` 0 (Sunday) – 6, `startTime` HH:MM in the tenant\'s time zone; headcount types are free text.',
    visibility: write,
    errors: { 404: 'groupId does not exist or is not visible' },
    example: { name: 'Sunday First Service', groupId: 3, dayOfWeek: 0, startTime: '08:30', frequency: 'Weekly', headcountTypes: ['Adults', 'Children'] },
  },
  'GET /api/attendance/services/:id': { summary: 'Read a service', visibility: read, errors: { 404: 'No service with this id, or its group is not visible' } },
  'PUT /api/attendance/services/:id': {
    summary: 'Update a service',
    visibility: write,
    errors: { 404: 'The service or the new groupId does not exist or is not visible' },
    example: { startTime: '09:00', isActive: true },
  },
  'DELETE /api/attendance/services/:id': { summary: 'Delete a service', visibility: write, errors: { 404: 'No service with this id, or not visible', 409: 'The service has sessions' } },
  'GET /api/attendance/sessions': { summary: 'List sessions', description: 'Filters by service, group, event and date range.', visibility: read },
  'POST /api/attendance/sessions': {
    summary: 'Open a session (one meeting on a date)',
    description: 'Of a service, a group meeting or an event: exactly one of `serviceId`, `groupId`, `eventId`.',
    visibility: write,
    errors: { 400: 'Not exactly one of serviceId, groupId and eventId, or a date outside the event', 404: 'The service, group or event does not exist or is not visible', 409: 'A session for it on that date exists' },
    example: { serviceId: 1, date: '2026-11-22', notes: 'Communion Sunday' },
  },
  'GET /api/attendance/sessions/:id': { summary: 'Read a session', description: 'With its headcounts and record counts.', visibility: read, errors: { 404: 'No session with this id, or not visible' } },
  'PUT /api/attendance/sessions/:id': {
    summary: 'Update a session\'s notes or mark it as not met',
    visibility: write,
    errors: { 404: 'No session with this id, or not visible' },
    example: { didNotMeet: true, notes: 'Cancelled: heavy rain' },
  },
  'DELETE /api/attendance/sessions/:id': { summary: 'Delete a session', visibility: write, errors: { 404: 'No session with this id, or not visible' } },
  'POST /api/attendance/sessions/:id/records': {
    summary: 'Mark contacts present',
    visibility: write,
    errors: { 404: 'The session, or a contact, does not exist or is not visible' },
    example: { contactIds: [12, 15], kind: 'Regular' },
  },
  'DELETE /api/attendance/sessions/:id/records/:contactId': {
    summary: 'Unmark a contact',
    visibility: write,
    errors: { 404: 'The session or the record does not exist or is not visible' },
  },
  'POST /api/attendance/sessions/:id/guests': {
    summary: 'Record a guest (a returning one matched by email or phone; `contact.matchedBy` says which)',
    visibility: write,
    errors: { 404: 'No session with this id, or not visible' },
    example: { firstName: 'Peter', lastName: 'Okello', phone: '+256 701 222333', email: 'peter@example.org' },
  },
  'PUT /api/attendance/sessions/:id/headcounts': {
    summary: 'Set a session\'s headcounts',
    visibility: write,
    errors: { 400: 'A type repeated (case-insensitively) or a negative count', 404: 'No session with this id, or not visible' },
    example: { counts: [{ type: 'Adults', count: 212 }, { type: 'Children', count: 64 }] },
  },
  'GET /api/attendance/records': { summary: 'List attendance records', visibility: read },
  'GET /api/attendance/summary': { summary: 'Attendance per week or month', visibility: read },
  'GET /api/attendance/absentees': { summary: 'List members who stopped coming', visibility: read },
  'POST /api/attendance/checkins': {
    summary: 'Check people in (children\'s ministry, kiosks)',
    description: 'roomGroupId puts everyone in one room; rooms gives each contact its own (one family, one code, children in different rooms): ' +
      'an entry per contact at most, each among contactIds, overriding roomGroupId (null: no room). ' + KIOSK_REACH,
    visibility: `${checkin} The room groups must be visible too.`,
    errors: {
      400: 'A rooms entry names a contact not among contactIds, or one contact twice',
      404: 'The session or a room group does not exist or is not visible, or a contact does not exist or is out of the caller\'s reach (one answer for both)',
      409: 'A contact is already checked in to the session',
    },
    example: { sessionId: 40, contactIds: [21, 22], rooms: [{ contactId: 21, roomGroupId: 9 }, { contactId: 22, roomGroupId: 10 }] },
  },
  'GET /api/attendance/checkins/lookup': {
    summary: 'Find a family to check in (kiosk lookup)',
    description: 'q is the beginning of a last name (at least 2 letters; case and accents ignored: "mu" finds Müller) or at least 4 digits of a phone number ' +
      '(matched anywhere in any of the person\'s numbers). At most 20 entries: one per household with a matching member, listing all its reachable members ' +
      'in the household\'s order with their role, and one (household null, role null) per matching person outside any household; entries in the name order ' +
      'of their first match (last name, first name). Each person carries only id, names, age (whole years on today in the tenant time zone, null without ' +
      'a date of birth) and household role: no emails, phones, addresses or dates of birth. ' + KIOSK_REACH,
    visibility: '`checkin:write`; the people of the tenant a kiosk reaches (below), whatever groups the caller sees.',
    errors: { 400: 'q is neither a last name of at least 2 letters nor at least 4 phone digits (or mixes letters and digits)' },
  },
  'GET /api/attendance/checkins': {
    summary: 'List check-ins',
    description: 'Filter by session, security code, and whether still checked in. Needs `attendance:read`: the list holds every security code, so a kiosk (`checkin:write` alone) cannot read it.',
    visibility: read,
  },
  'POST /api/attendance/checkins/checkout': {
    summary: 'Check out with the security code',
    description: `Every open check-in under the code (its case and surrounding spaces ignored). After ${CHECKOUT_FAILURES} unknown or used codes from one user within 15 minutes, further check-outs are 429 until the oldest failure is 15 minutes old: a stolen kiosk token cannot guess a session's open codes.`,
    visibility: checkin,
    errors: {
      404: 'No open check-in with the security code in the session ("No open check-in with security code ZZZZ in this session"): a mistyped or unknown code',
      409: 'The code was used and its family already checked out ("Security code K7Q4 was already checked out at 10:42", tenant time zone)',
      429: `${CHECKOUT_FAILURES} failed check-outs (404 or 409) by the caller in 15 minutes`,
    },
    example: { sessionId: 40, securityCode: 'K7Q4' },
  },
  'GET /api/attendance/checkins/:id/label': {
    summary: 'Print data for a check-in label',
    description: 'A reprint keeps the code. checkinNote is the person\'s check-in note (allergies, medical or custody notes; null without one): a kiosk sees it only here and on the PDF labels, never in the lookup. Without `attendance:read` (a kiosk) only the label of a check-in still open at a session dated today (tenant time zone) is answered: ' +
      'labels carry security codes, and a kiosk needs them only to reprint today\'s.',
    visibility: checkin,
    errors: { 404: 'No check-in with this id, or not visible (to a kiosk: not open, or its session is not today\'s)' },
  },
  'GET /api/attendance/checkins/labels': {
    summary: 'Print check-in labels (PDF)',
    description: 'application/pdf, one 4 in × 2 in page (288 × 144 pt, the common size of thermal label printers) per label: a child label per check-in in the order of ids ' +
      '(first name, last name, room, session name and date, security code, and the person\'s check-in note — allergies, medical or custody notes — when there is one), ' +
      'then one parent stub per security code with the code and the names of the children under it. Each id is readable as its JSON label is: ' +
      'without `attendance:read` (a kiosk) only check-ins still open at a session dated today.',
    visibility: checkin,
    errors: { 400: 'ids is not 1–20 comma-separated ids', 404: 'A check-in does not exist or is not readable (the first such id is named)' },
  },
  'GET /api/attendance/checkins/sessions': {
    summary: "Today's sessions for a kiosk",
    description: 'The sessions dated today in the tenant time zone (didNotMeet left out) that the caller sees, by service start time: a kiosk, which cannot list sessions, picks one here. ' +
      "rooms lists the groups right below the session's group that the caller sees (the children's rooms), by name. " +
      'A session is opened by the office (`POST /api/attendance/sessions`).',
    visibility: checkin,
  },
};
