import type { ParishModule } from '../module.js';
import { eventsDocs } from './events.docs.js';
import { eventsRoutes } from './events.routes.js';

/** Events: events hosted by groups, their categories, registration, attendance and activities. */
export const eventsModule: ParishModule = {
  name: 'events',
  prefix: '/api/events',
  routes: eventsRoutes,
  docs: eventsDocs,
};
