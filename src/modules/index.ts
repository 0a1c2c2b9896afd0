import { attendanceModule } from './attendance/attendance.module.js';
import { authRoutes } from './auth/auth.routes.js';
import { changesModule } from './changes/changes.module.js';
import { contactsRoutes } from './contacts/contacts.routes.js';
import { eventsRoutes } from './events/events.routes.js';
import { financeModule } from './finance/finance.module.js';
import { groupsRoutes } from './groups/groups.routes.js';
import { healthRoutes } from './health/health.routes.js';
import { householdsModule } from './households/households.module.js';
import type { ParishModule } from './module.js';
import { notificationsModule } from './notifications/notifications.module.js';
import { privacyModule } from './privacy/privacy.module.js';
import { reportsModule } from './reports/reports.module.js';
import { rolesRoutes } from './roles/roles.routes.js';
import { searchModule } from './search/search.module.js';
import { tasksModule } from './tasks/tasks.module.js';
import { tenantsRoutes } from './tenants/tenants.routes.js';
import { usersRoutes } from './users/users.routes.js';

/** Every module, in registration order: adding a module is one folder and one line here. */
export const MODULES: ParishModule[] = [
  { name: 'health', prefix: '/api', routes: healthRoutes },
  { name: 'tenants', prefix: '/api', routes: tenantsRoutes },
  { name: 'auth', prefix: '/api', routes: authRoutes },
  { name: 'users', prefix: '/api/users', routes: usersRoutes },
  { name: 'roles', prefix: '/api/roles', routes: rolesRoutes },
  { name: 'contacts', prefix: '/api/crm', routes: contactsRoutes },
  { name: 'groups', prefix: '/api/groups', routes: groupsRoutes },
  { name: 'events', prefix: '/api/events', routes: eventsRoutes },
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
