export { AttendanceRoutes } from './AttendanceRoutes';
