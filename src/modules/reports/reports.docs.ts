import { VISIBILITY, type ModuleDocs } from '../../plugins/operation-docs.js';

const scope = `${VISIBILITY.hierarchyRead} Reports cover only groups in scope.`;
const submitter = 'its submitter within 7 days of submitting (while still leading the group), or `hierarchy:all`.';

/** OpenAPI prose of /api/reports and /api/dashboard: standard reports, report templates and submissions (merged by the docs plugin). */
export const reportsDocs: ModuleDocs = {
  'GET /api/reports': { summary: 'List the standard reports', description: 'Each with its key, name, parameters and the permission it needs.', visibility: 'only reports whose module permission the caller holds.' },
  'GET /api/reports/:key': {
    summary: 'Run a standard report (JSON or CSV)',
    description: 'Besides the parameters below, each report takes its own (see GET /api/reports); an unknown parameter is 400.',
    query: {
      type: 'object',
      properties: {
        from: { type: 'string', format: 'date' },
        to: { type: 'string', format: 'date' },
        groupId: { type: 'integer', minimum: 1, description: 'Limit to the group (and its subtree with includeDescendants)' },
        includeDescendants: { type: 'boolean', description: 'Not for giving reports' },
        format: { type: 'string', enum: ['json', 'csv'], default: 'json' },
      },
    },
    visibility: `${scope} A report whose module permission the caller lacks is 403.`,
    errors: { 403: 'The report\'s module permission is missing', 404: 'Unknown report key, or a group parameter not visible' },
  },
  'GET /api/reports/templates': { summary: 'List report templates', visibility: VISIBILITY.tenant },
  'POST /api/reports/templates': {
    summary: 'Create a report template',
    description: 'The form leaders of a group category fill in every week or month.',
    visibility: VISIBILITY.structure,
    errors: { 404: 'groupCategoryId does not exist in the tenant' },
    example: {
      name: 'Cell weekly report', groupCategoryId: 6, frequency: 'Weekly',
      fields: [
        { key: 'attendance', label: 'Attendance', type: 'number', required: true },
        { key: 'visitors', label: 'Visitors', type: 'number', required: false },
        { key: 'topic', label: 'Topic', type: 'select', required: false, options: ['Prayer', 'Bible study'] },
      ],
    },
  },
  'GET /api/reports/templates/:id': { summary: 'Read a report template', visibility: VISIBILITY.tenant, errors: { 404: 'No template with this id in the tenant' } },
  'PUT /api/reports/templates/:id': {
    summary: 'Update a report template',
    visibility: VISIBILITY.structure,
    errors: { 404: 'The template or groupCategoryId does not exist in the tenant', 409: 'Changing the category or frequency of a template with submissions' },
    example: { isActive: false },
  },
  'DELETE /api/reports/templates/:id': { summary: 'Delete a report template', visibility: VISIBILITY.structure, errors: { 404: 'No template with this id in the tenant', 409: 'The template has submissions' } },
  'POST /api/reports/templates/:id/submissions': {
    summary: 'Submit a group\'s report for a period',
    visibility: VISIBILITY.hierarchyWrite,
    errors: { 400: 'A value does not fit its field, or the period has not started', 404: 'The template or group does not exist or is not visible', 409: 'The group already reported for the period' },
    example: { groupId: 21, period: '2026-11-22', values: { attendance: 14, visitors: 2, topic: 'Prayer' } },
  },
  'GET /api/reports/templates/:id/submissions': { summary: 'List a template\'s submissions', visibility: scope, errors: { 404: 'No template with this id in the tenant' } },
  'GET /api/reports/templates/:id/rollup': { summary: 'Who has not reported, and the totals', visibility: scope, errors: { 404: 'The template, or a groupId, does not exist or is not visible' } },
  'PUT /api/reports/submissions/:id': {
    summary: 'Correct a submission',
    visibility: submitter,
    errors: { 400: 'A value does not fit its field', 403: 'Not the submitter within 7 days, nor hierarchy:all', 404: 'No submission with this id, or its group is not visible' },
    example: { values: { attendance: 15, visitors: 2, topic: 'Prayer' } },
  },
  'DELETE /api/reports/submissions/:id': {
    summary: 'Delete a submission',
    visibility: submitter,
    errors: { 403: 'Not the submitter within 7 days, nor hierarchy:all', 404: 'No submission with this id, or its group is not visible' },
  },
  'GET /api/dashboard': { summary: 'The caller\'s dashboard', visibility: 'each section only with its permission; groups, events and attendance within the caller\'s hierarchy scope.' },
};
