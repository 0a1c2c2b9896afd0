export { HouseholdsRoutes } from './HouseholdsRoutes';
