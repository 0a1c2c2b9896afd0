import type { ParishModule } from '../module.js';

/** Notifications, messages, templates and webhooks (§6) (modules-contract). Built by its issue; registered from src/modules/index.ts. */
export const notificationsModule: ParishModule = {
  name: 'notifications',
  prefix: '/api/notifications',
  routes: async () => {},
};
