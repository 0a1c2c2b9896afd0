import '@mantine/charts/styles.css';
export { ReportsRoutes } from './ReportsRoutes';
