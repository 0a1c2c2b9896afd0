import type { ModuleDocs } from '../../plugins/operation-docs.js';

/** OpenAPI prose of the tenant routes (merged into the routes by the docs plugin). */
export const tenantsDocs: ModuleDocs = {
  'GET /api/tenants': {
    summary: 'List churches',
    description: 'Slug and name of every tenant, for a login screen\'s church picker.',
  },
  'GET /api/tenants/current': {
    summary: 'Read the caller\'s church settings',
    description: 'Name, time zone (used for every calendar date the server computes), currency, whether self-registration is allowed, ' +
      'what giving statements print of the church (postal address, registration or tax number, closing sentence, paper size) ' +
      'and where replies to the church\'s messages go (`replyTo`; null: the sender\'s own email).',
  },
  'PUT /api/tenants/current': {
    summary: 'Update the caller\'s church settings',
    description: 'Fields sent replace the stored ones; `timeZone` is an IANA zone name, `currency` an ISO 4217 code. ' +
      'Amounts are stored as integers of the currency\'s minor unit, so the currency changes only while none is stored ' +
      '(no gift, pledge or batch control amount): it is never re-read in another currency. ' +
      'Blank `address`, `taxNumber`, `statementClosing` or `replyTo` (or null) clears it; text is trimmed.',
    errors: { 400: 'Unknown time zone or currency code, a paper size other than A4 or Letter, a reply-to that is not an email, or an invalid field', 409: 'A new currency while gifts, pledges or batch control amounts are recorded (the message gives their counts)' },
    example: {
      name: 'Grace Chapel', timeZone: 'Africa/Kampala', currency: 'UGX', allowRegistration: false, address: 'Plot 12, Church Road\nKampala',
      taxNumber: 'UG-12345', statementClosing: 'No goods or services were provided in exchange for these contributions.', paperSize: 'A4', replyTo: 'office@grace.example.org',
    },
  },
};
