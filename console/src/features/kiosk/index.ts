export { KioskPage } from './KioskPage';
