export { AdminRoutes } from './AdminRoutes';
