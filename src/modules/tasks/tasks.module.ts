import type { ParishModule } from '../module.js';

/** Tasks and follow-up: tasks, comments, pipelines, cards, automations (§2) (modules-contract). Built by its issue; registered from src/modules/index.ts. */
export const tasksModule: ParishModule = {
  name: 'tasks',
  prefix: '/api/tasks',
  routes: async () => {},
};
