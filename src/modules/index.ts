import type { ModuleDocs } from '../plugins/operation-docs.js';
import { attendanceModule } from './attendance/attendance.module.js';
import { authModule } from './auth/auth.module.js';
import { changesModule } from './changes/changes.module.js';
import { contactsModule } from './contacts/contacts.module.js';
import { eventsModule } from './events/events.module.js';
import { financeModule } from './finance/finance.module.js';
import { groupsModule } from './groups/groups.module.js';
import { healthModule } from './health/health.module.js';
import { householdsModule } from './households/households.module.js';
import type { ParishModule } from './module.js';
import { notificationsModule } from './notifications/notifications.module.js';
import { privacyModule } from './privacy/privacy.module.js';
import { reportsModule } from './reports/reports.module.js';
import { rolesModule } from './roles/roles.module.js';
import { searchModule } from './search/search.module.js';
import { tasksModule } from './tasks/tasks.module.js';
import { tenantsModule } from './tenants/tenants.module.js';
import { usersModule } from './users/users.module.js';

/** Every module, in registration order: adding a module is one folder and one line here. */
export const MODULES: ParishModule[] = [
  healthModule,
  tenantsModule,
  authModule,
  usersModule,
  rolesModule,
  contactsModule,
  groupsModule,
  eventsModule,
  changesModule,
  householdsModule,
  privacyModule,
  attendanceModule,
  tasksModule,
  financeModule,
  searchModule,
  notificationsModule,
  reportsModule,
];

/** Every operation's docs (each module's `docs`), keyed by `METHOD path`: the docs plugin merges them into the routes. */
export const API_DOCS: ModuleDocs = Object.assign({}, ...MODULES.map((m) => m.docs));
