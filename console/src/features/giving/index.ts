export { GivingRoutes } from './GivingRoutes';
