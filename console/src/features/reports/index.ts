export { ReportsRoutes } from './ReportsRoutes';
