export { GroupsRoutes } from './GroupsRoutes';
