import type { ParishModule } from '../module.js';
import { contactsDocs } from './contacts.docs.js';
import { contactsRoutes } from './contacts.routes.js';

/** Contacts (CRM): people and companies, import, relationships and requests; tenant-wide, no hierarchy filter. */
export const contactsModule: ParishModule = {
  name: 'contacts',
  prefix: '/api/crm',
  routes: contactsRoutes,
  docs: contactsDocs,
};
