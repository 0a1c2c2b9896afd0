import { VISIBILITY, type ModuleDocs } from '../../plugins/operation-docs.js';

const eventWrite = `${VISIBILITY.hierarchyWrite} Events without a group are writable only with \`hierarchy:all\`.`;

/** OpenAPI prose of /api/events: events, categories, registration, attendance, activities (merged by the docs plugin). */
export const eventsDocs: ModuleDocs = {
  'GET /api/events': {
    summary: 'List events',
    description: 'Ordered by start date; filters by group, category and date range.',
    visibility: VISIBILITY.hierarchyRead,
  },
  'POST /api/events': {
    summary: 'Create an event',
    visibility: eventWrite,
    errors: { 400: 'endDate before startDate', 404: 'groupId or categoryId does not exist or is not visible' },
    example: { name: 'Youth Camp', description: 'Three days at the lake', startDate: '2026-12-27', endDate: '2026-12-29', groupId: 7, categoryId: 2 },
  },
  'GET /api/events/:id': {
    summary: 'Read an event',
    description: 'With the first 100 registrations (by id), attendance records (by time) and activities (by id), and the count of each: '
      + 'an event may hold thousands, so the rest come through the paginated `registration`, `attendance` and `activities` lists.',
    visibility: VISIBILITY.hierarchyRead,
    errors: { 404: 'No event with this id, or not visible' },
  },
  'PUT /api/events/:id': {
    summary: 'Update an event',
    visibility: eventWrite,
    errors: { 400: 'endDate before startDate', 404: 'The event, groupId or categoryId does not exist or is not visible' },
    example: { endDate: '2026-12-30' },
  },
  'DELETE /api/events/:id': {
    summary: 'Delete an event',
    description: 'Its registrations, attendance and activities go with it.',
    visibility: eventWrite,
    errors: { 404: 'No event with this id, or not visible' },
  },
  'GET /api/events/categories': {
    summary: 'List event categories',
    visibility: VISIBILITY.tenant,
  },
  'POST /api/events/categories': {
    summary: 'Create an event category',
    visibility: VISIBILITY.structure,
    errors: { 409: 'A category with this name exists' },
    example: { name: 'Conference', description: 'Multi-day gatherings' },
  },
  'GET /api/events/:id/registration': {
    summary: 'List an event\'s registrations',
    visibility: VISIBILITY.hierarchyRead,
    errors: { 404: 'No event with this id, or not visible' },
  },
  'POST /api/events/:id/registration': {
    summary: 'Register contacts for an event',
    description: 'Contacts already registered are skipped.',
    visibility: eventWrite,
    errors: { 404: 'The event, or a contact, does not exist or is not visible' },
    example: { contactIds: [12, 15] },
  },
  'DELETE /api/events/:id/registration/:registrationId': {
    summary: 'Cancel a registration',
    visibility: eventWrite,
    errors: { 404: 'The event or the registration does not exist or is not visible' },
  },
  'GET /api/events/:id/attendance': {
    summary: 'List who attended an event',
    visibility: VISIBILITY.hierarchyRead,
    errors: { 404: 'No event with this id, or not visible' },
  },
  'POST /api/events/:id/attendance': {
    summary: 'Record attendance at an event',
    description: 'Contacts already recorded are skipped.',
    visibility: eventWrite,
    errors: { 404: 'The event, or a contact, does not exist or is not visible' },
    example: { contactIds: [12, 15] },
  },
  'DELETE /api/events/:id/attendance/:attendanceId': {
    summary: 'Remove an attendance record',
    visibility: eventWrite,
    errors: { 404: 'The event or the record does not exist or is not visible' },
  },
  'GET /api/events/:id/activities': {
    summary: 'List an event\'s activities',
    description: 'Salvations, baptisms, testimonies … recorded at the event, with the contacts involved.',
    visibility: VISIBILITY.hierarchyRead,
    errors: { 404: 'No event with this id, or not visible' },
  },
  'POST /api/events/:id/activities': {
    summary: 'Record an activity at an event',
    visibility: eventWrite,
    errors: { 404: 'The event, or a contact, does not exist or is not visible' },
    example: { activityType: 'Salvation', contactIds: [12], notes: 'At the evening service' },
  },
};
