import type { ParishModule } from '../module.js';
import { authDocs } from './auth.docs.js';
import { authRoutes } from './auth.routes.js';

/** Authentication: login, refresh, logout, password reset and self-registration (api-contract §3, all public). */
export const authModule: ParishModule = {
  name: 'auth',
  prefix: '/api',
  routes: authRoutes,
  docs: authDocs,
};
