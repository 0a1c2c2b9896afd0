import { and, asc, eq, sql } from 'drizzle-orm';
import { withTenant, type Db } from '../../db/client.js';
import { automations, pipelineSteps, pipelines, users } from '../../db/schema/index.js';
import { addDays, todayIn } from '../../lib/periods.js';
import type { DemoSeeder, TenantSeeder } from '../module.js';
import { addCard, moveCard } from './cards.js';
import { openTasks } from './task-writes.js';

/** modules-contract §2: what every tenant starts with (the migration adds the same, automations inactive, to older tenants). */
export const NEW_PEOPLE_STEPS = [
  { name: 'Welcome call', dueInDays: 2 },
  { name: 'Matched to a fellowship', dueInDays: 7 },
  { name: 'Attended a fellowship', dueInDays: 14 },
  { name: 'Joined a serving team', dueInDays: 30 },
  { name: 'Baptised', dueInDays: 60 },
];

export const seedTasksTenant: TenantSeeder = async (tx, tenantId) => {
  const [pipeline] = await tx
    .insert(pipelines)
    .values({ tenantId, name: 'New people', description: 'Follow-up of first-time guests, from a welcome call to baptism' })
    .returning({ id: pipelines.id });
  await tx.insert(pipelineSteps).values(NEW_PEOPLE_STEPS.map((s, i) => ({ tenantId, pipelineId: pipeline.id, name: s.name, position: i + 1, dueInDays: s.dueInDays })));
  await tx.insert(automations).values([
    {
      tenantId, name: 'First visit → New people', trigger: 'attendance.first_visit', conditions: {},
      action: { type: 'addToPipeline', pipelineId: pipeline.id, assignTo: 'groupLeader' },
    },
    {
      tenantId, name: 'Prayer request → task', trigger: 'request.created', conditions: { type: 'Prayer' },
      action: { type: 'createTask', title: 'Pray with {contact}', dueInDays: 2, priority: 'Normal', assignTo: 'groupLeader' },
    },
  ]);
};

/** The demo church: a few tasks (some overdue, some done) and a few cards on the New people board. */
export const seedTasksDemo: DemoSeeder = async (db: Db, demo) => {
  await withTenant(db, demo.tenantId, async (tx) => {
    const actor = { tenantId: demo.tenantId, userId: demo.adminUserId };
    const today = todayIn('UTC');
    const riverside = demo.groups.get('Riverside Fellowship') ?? null;
    const hillside = demo.groups.get('Hillside Fellowship') ?? null;
    const [leader] = await tx.select({ id: users.id }).from(users).where(eq(users.tenantId, demo.tenantId)).orderBy(asc(users.id)).limit(1);
    const task = (title: string, due: number | null, contactId: number | undefined, groupId: number | null, priority: 'Low' | 'Normal' | 'High' | 'Urgent' = 'Normal') => ({
      title, dueDate: due === null ? null : addDays(today, due), contactId: contactId ?? null, groupId, priority,
      assigneeUserId: leader?.id ?? null, createdByUserId: demo.adminUserId,
    });
    const rows = await openTasks(tx, actor, [
      task('Call about the youth camp', -3, demo.people[3], riverside, 'High'),
      task('Visit after surgery', -1, demo.people[5], hillside, 'Urgent'),
      task('Order new hymn books', 5, undefined, null, 'Low'),
      task('Plan the harvest thanksgiving', 12, undefined, riverside),
      task('Welcome pack for the new family', 0, demo.morePeople[0], riverside),
      task('Return the borrowed projector', -10, undefined, hillside),
    ]);
    // Two are done already.
    await tx.execute(sql`update tasks set status = 'Done', completed_at = now() where tenant_id = ${demo.tenantId} and id in (${rows[5].id}, ${rows[3].id})`);
    const [pipeline] = await tx.select({ id: pipelines.id, name: pipelines.name }).from(pipelines).where(and(eq(pipelines.tenantId, demo.tenantId), eq(pipelines.name, 'New people')));
    if (!pipeline) return;
    const steps = await tx.select().from(pipelineSteps).where(and(eq(pipelineSteps.tenantId, demo.tenantId), eq(pipelineSteps.pipelineId, pipeline.id))).orderBy(asc(pipelineSteps.position));
    const guests = demo.morePeople.slice(-4);
    for (const [i, contactId] of guests.entries()) {
      const card = await addCard(tx, actor, { pipelineId: pipeline.id, pipelineName: pipeline.name, firstStep: steps[0], contactId, assigneeUserId: leader?.id ?? null, groupId: i % 2 ? hillside : riverside }, today);
      // Spread them over the first steps.
      let current = card;
      for (let s = 1; current && s <= i % 3; s++) {
        await moveCard(tx, actor, current, steps[s - 1], steps[s], today);
        current = { ...current, stepId: steps[s].id };
      }
    }
  });
};
