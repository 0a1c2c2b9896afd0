import type { ParishModule } from '../module.js';
import { automationsSubscriber } from './automations.js';
import { tasksRoutes } from './tasks.routes.js';

/** Tasks and follow-up: tasks, comments, pipelines, cards, automations (modules-contract §2). */
export const tasksModule: ParishModule = {
  name: 'tasks',
  prefix: '/api/tasks',
  routes: tasksRoutes,
  subscribers: [automationsSubscriber],
};
