import type { ParishModule } from '../module.js';
import { automationsSubscriber } from './automations.js';
import { tasksDocs } from './tasks.docs.js';
import { tasksRoutes } from './tasks.routes.js';
import { seedTasksDemo, seedTasksTenant } from './tasks.seed.js';

/** Tasks and follow-up: tasks, comments, pipelines, cards, automations (modules-contract §2). */
export const tasksModule: ParishModule = {
  name: 'tasks',
  prefix: '/api/tasks',
  routes: tasksRoutes,
  docs: tasksDocs,
  subscribers: [automationsSubscriber],
  seedTenant: seedTasksTenant,
  seedDemo: seedTasksDemo,
};
