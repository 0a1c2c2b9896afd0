export { MessagesRoutes } from './MessagesRoutes';
