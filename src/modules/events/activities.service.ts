import { recordChanges } from '../../changes/recorder.js';
import { withTenant, type Db } from '../../db/client.js';
import { pageResult, toPage, type PageRequest } from '../../lib/pagination.js';
import type { Principal } from '../../plugins/auth.js';
import * as repo from './activities.repository.js';
import { readableEvent, writableEvent } from './event-access.js';
import type { CreateActivityBody } from './events.schemas.js';
import { requireContacts } from './rosters.service.js';

export function createActivitiesService({ db }: { db: Db }) {
  return {
    list: (auth: Principal, eventId: number, query: PageRequest) =>
      withTenant(db, auth, async (tx) => {
        await readableEvent(tx, auth, eventId);
        const page = toPage(query);
        const { items, total } = await repo.pageActivities(tx, auth.tenantId, eventId, page);
        return pageResult(page, items, total);
      }),

    create: (auth: Principal, eventId: number, body: CreateActivityBody) =>
      withTenant(db, auth, async (tx) => {
        const { event } = await writableEvent(tx, auth, eventId);
        await requireContacts(tx, auth.tenantId, body.contactIds);
        const activity = await repo.insertActivity(tx, auth.tenantId, eventId, { activityType: body.activityType, notes: body.notes ?? null, contactIds: body.contactIds });
        // One change per contact linked (the timeline and automations are per person), in one statement.
        await recordChanges(tx, auth, activity.contactIds.map((contactId) => ({
          type: 'event.activity_recorded' as const, entityId: eventId,
          data: { eventId, eventName: event.name, groupId: event.groupId, activityId: activity.id, activityType: activity.activityType, contactId },
        })));
        return activity;
      }),
  };
}

export type ActivitiesService = ReturnType<typeof createActivitiesService>;
