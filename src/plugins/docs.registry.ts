import { attendanceDocs } from '../modules/attendance/attendance.docs.js';
import { authDocs } from '../modules/auth/auth.docs.js';
import { changesDocs } from '../modules/changes/changes.docs.js';
import { contactsDocs } from '../modules/contacts/contacts.docs.js';
import { eventsDocs } from '../modules/events/events.docs.js';
import { financeDocs } from '../modules/finance/finance.docs.js';
import { groupsDocs } from '../modules/groups/groups.docs.js';
import { healthDocs } from '../modules/health/health.docs.js';
import { householdsDocs } from '../modules/households/households.docs.js';
import { notificationsDocs } from '../modules/notifications/notifications.docs.js';
import { privacyDocs } from '../modules/privacy/privacy.docs.js';
import { reportsDocs } from '../modules/reports/reports.docs.js';
import { rolesDocs } from '../modules/roles/roles.docs.js';
import { searchDocs } from '../modules/search/search.docs.js';
import { tasksDocs } from '../modules/tasks/tasks.docs.js';
import { tenantsDocs } from '../modules/tenants/tenants.docs.js';
import { usersDocs } from '../modules/users/users.docs.js';
import type { ModuleDocs } from './operation-docs.js';

/** Every module's operation docs (`src/modules/<module>/<module>.docs.ts`), keyed by `METHOD path`. */
export const API_DOCS: ModuleDocs = {
  ...healthDocs, ...tenantsDocs, ...authDocs, ...usersDocs, ...rolesDocs, ...contactsDocs, ...householdsDocs, ...privacyDocs, ...changesDocs,
  ...groupsDocs, ...eventsDocs, ...attendanceDocs, ...tasksDocs, ...financeDocs, ...searchDocs, ...notificationsDocs, ...reportsDocs,
};
