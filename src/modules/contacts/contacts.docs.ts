import { VISIBILITY, type ModuleDocs } from '../../plugins/operation-docs.js';

const person = {
  category: 'Person',
  person: { firstName: 'Ruth', lastName: 'Adams', gender: 'Female', civilStatus: 'Married', dateOfBirth: '1986-04-12' },
  emails: [{ value: 'ruth@example.org', isPrimary: true }],
  phones: [{ value: '+256 772 123456' }],
  addresses: [{ street: '12 Hill Road', city: 'Kampala', country: 'Uganda' }],
  occasions: [{ type: 'Baptism', date: '2004-08-01' }],
};

/** OpenAPI prose of /api/crm: contacts, relationships, pastoral requests, import (merged by the docs plugin). */
export const contactsDocs: ModuleDocs = {
  'GET /api/crm/contacts': {
    summary: 'List contacts',
    description: 'Persons and companies ordered by last name, first name. `q` matches names, emails and phones (and phone digits when `q` is phone-shaped); filters by category, status and more.',
    visibility: VISIBILITY.tenant,
  },
  'GET /api/crm/people': {
    summary: 'List persons',
    description: 'The contacts list restricted to the Person category.',
    visibility: VISIBILITY.tenant,
  },
  'GET /api/crm/companies': {
    summary: 'List companies',
    description: 'The contacts list restricted to the Company category.',
    visibility: VISIBILITY.tenant,
  },
  'POST /api/crm/contacts': {
    summary: 'Create a contact',
    description: 'A Person needs `person.firstName` and `person.lastName`, a Company `company.name`. Emails, phones, addresses, occasions and identifications may come along; at most one primary per array.',
    visibility: VISIBILITY.tenant,
    example: person,
  },
  'GET /api/crm/contacts/:id': {
    summary: 'Read a contact',
    description: 'With its emails, phones, addresses, occasions, identifications, relationships, pastoral requests and group memberships.',
    visibility: `${VISIBILITY.tenant} Group memberships show only groups visible to the caller.`,
    errors: { 404: 'No contact with this id in the tenant' },
  },
  'PUT /api/crm/contacts/:id': {
    summary: 'Update a contact',
    description: 'Scalar fields and the `person`/`company` objects merge; an array that is sent replaces that array. Output-only fields may be sent back and are ignored.',
    visibility: VISIBILITY.tenant,
    errors: { 404: 'No contact with this id in the tenant' },
    example: { status: 'MovedAway', person: { occupation: 'Teacher' }, phones: [{ value: '+256 772 654321', isPrimary: true }] },
  },
  'DELETE /api/crm/contacts/:id': {
    summary: 'Delete a contact',
    description: 'Removes everything that belongs to it: relationships (both sides), requests, memberships, registrations, attendance and activity links.',
    visibility: VISIBILITY.tenant,
    errors: { 404: 'No contact with this id in the tenant', 409: 'The contact is linked to a user account' },
  },
  'POST /api/crm/contacts/import': {
    summary: 'Import contacts (JSON or CSV)',
    description: 'JSON `{contacts: [...]}` or `text/csv` with the header `firstName,lastName,phone,email,gender,dateOfBirth,street,city,country,householdKey,householdRole`, or with the headers of a Planning Center People, ChurchCRM, Breeze or Elvanto people export (recognised as `parish import` recognises them: e.g. Planning Center\'s `Home Email`, `Birthdate`, `Home Address City`, `Household ID`); at most 10,000 rows. ' +
      'The row rules are those of `parish import`: gender `M`/`F` (any case) is Male/Female; dates are read as YYYY-MM-DD, YYYY/MM/DD, a timestamp, `Sep 30, 1965`, or `9/30/1965` (month first for Planning Center, ChurchCRM and Breeze, day first for Elvanto, else only when a part above 12 tells); role words such as `Head of Household` or `son` become roles; a CSV line without a value is no row. ' +
      'A match gets the row\'s names, gender and date of birth, and any email, phone or address (street, city, country) it does not have yet. ' +
      'Answers per-row results `{total, created, updated, unchanged, failed, errors: [{row, message}]}` (`unchanged`: the row matched a person who already has every value it carries — names, gender, date of birth, email, phone, address, household and role; nothing is written and no change recorded). ' +
      'Households: rows sharing a `householdKey` end in one household, created by the key (named by the default rule, `household.created`) or found by it on a later import (keys are per tenant), so a re-import moves no one. `householdRole` is Head, Spouse, Child or Other; a keyed row without one joins as Other, and a current member keeps their role. ' +
      'A role without a key, an unknown role, a key other than that of the household the person already belongs to, two keys for one person, and a 31st member are row errors. ' +
      '`dryRun` (query, or in the JSON body) matches and counts the rows as the import would and writes nothing: the import wizard\'s preview.',
    visibility: VISIBILITY.tenant,
    errors: { 415: 'Neither application/json nor text/csv' },
    example: { contacts: [{ firstName: 'Ruth', lastName: 'Adams', phone: '+256 772 123456', email: 'ruth@example.org', gender: 'Female', dateOfBirth: '1980-02-01', street: 'Plot 4 Kira Road', city: 'Kampala', country: 'Uganda', householdKey: 'adams-12', householdRole: 'Head' }] },
  },
  'GET /api/crm/contacts/import/formats': {
    summary: 'The exports the contacts import recognises',
    description: 'The header mappings of the CSV import and `parish import` (one set): for each known export (Planning Center People, ChurchCRM, Breeze, Elvanto, and Parish\'s own columns as the fallback) the headers that identify it and, per import field, its source headers (the first non-empty one is taken), and how it writes dates. The import wizard shows a file\'s columns mapped with it; a column renamed to a field name is taken as that field.',
    visibility: VISIBILITY.tenant,
  },
  'GET /api/crm/relationships': {
    summary: 'List relationships',
    description: 'Filter by `contactId` and `type`. Each item is "relatedContact is contact\'s type".',
    visibility: VISIBILITY.tenant,
  },
  'POST /api/crm/relationships': {
    summary: 'Link two contacts',
    description: '`{contactId: A, relatedContactId: B, type: T}` means "B is A\'s T"; the inverse row (Parent ↔ Child, Spouse ↔ Spouse …) is stored too. Answers A\'s row.',
    visibility: VISIBILITY.tenant,
    errors: { 400: 'A contact related to itself', 404: 'contactId or relatedContactId does not exist in the tenant', 409: 'The relationship already exists' },
    example: { contactId: 12, relatedContactId: 15, type: 'Spouse' },
  },
  'DELETE /api/crm/relationships/:id': {
    summary: 'Remove a relationship',
    description: 'Both sides go.',
    visibility: VISIBILITY.tenant,
    errors: { 404: 'No relationship with this id in the tenant' },
  },
  'GET /api/crm/requests': {
    summary: 'List pastoral requests',
    description: 'Filter by `contactId`, `type` and `status`.',
    visibility: `${VISIBILITY.tenant} Counseling and Welfare requests need \`care:read\` as well.`,
  },
  'POST /api/crm/requests': {
    summary: 'Record a pastoral request',
    description: 'Prayer, Counseling, Visitation, Welfare, Thanksgiving or Other; status defaults to Open.',
    visibility: VISIBILITY.tenant,
    errors: { 404: 'contactId does not exist in the tenant' },
    example: { contactId: 12, type: 'Prayer', description: 'Pray for her mother\'s recovery' },
  },
  'PUT /api/crm/requests/:id': {
    summary: 'Update a pastoral request',
    description: 'Typically the status: Open → InProgress → Resolved.',
    visibility: VISIBILITY.tenant,
    errors: { 404: 'No request (or contactId) with this id in the tenant' },
    example: { status: 'Resolved' },
  },
  'DELETE /api/crm/requests/:id': {
    summary: 'Delete a pastoral request',
    visibility: VISIBILITY.tenant,
    errors: { 404: 'No request with this id in the tenant' },
  },
};
