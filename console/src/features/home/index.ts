import '@mantine/charts/styles.css';

export { HomePage } from './HomePage';
