export { PeopleRoutes } from './PeopleRoutes';
