export { FollowupRoutes } from './FollowupRoutes';
