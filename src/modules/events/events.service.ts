import { fieldChanges, recordChanges } from '../../changes/recorder.js';
import { withTenant, type Db } from '../../db/client.js';
import { BadRequestError, NotFoundError } from '../../lib/errors.js';
import { pageResult, toPage } from '../../lib/pagination.js';
import type { Principal } from '../../plugins/auth.js';
import { isGroupVisible, loadGroupScope } from '../groups/groups.visibility.js';
import { pageActivities } from './activities.repository.js';
import { assertHostable, readableEvent, writableEvent } from './event-access.js';
import * as repo from './events.repository.js';
import { eventRosters, ROSTER_IN_READ } from './roster-read.repository.js';
import type { CreateEventBody, EventDetail, EventItem, ListEventsQuery, UpdateEventBody } from './events.schemas.js';

export const META_DATA_MAX_BYTES = 16 * 1024;
export const META_DATA_MAX_DEPTH = 8;

/** Nesting depth of a JSON value: the metaData object itself is depth 1. */
function depthOf(value: unknown): number {
  if (value === null || typeof value !== 'object') return 0;
  const children = Array.isArray(value) ? value : Object.values(value);
  let deepest = 0;
  for (const child of children) deepest = Math.max(deepest, depthOf(child));
  return 1 + deepest;
}

/** api-contract §7: metaData is bounded so that one event cannot carry an arbitrary document. */
export function checkMetaData(metaData: Record<string, unknown> | undefined): void {
  if (metaData === undefined) return;
  if (Buffer.byteLength(JSON.stringify(metaData)) > META_DATA_MAX_BYTES) throw new BadRequestError('body/metaData must be at most 16 KB serialized');
  if (depthOf(metaData) > META_DATA_MAX_DEPTH) throw new BadRequestError(`body/metaData must be nested at most ${META_DATA_MAX_DEPTH} levels deep`);
}

function checkDates(startDate: string, endDate: string): void {
  // YYYY-MM-DD strings compare as dates.
  if (endDate < startDate) throw new BadRequestError(`body/endDate must not precede startDate (${startDate})`);
}

async function checkCategory(tx: Db, tenantId: number, categoryId: number | null | undefined): Promise<void> {
  if (categoryId != null && !(await repo.categoryExists(tx, tenantId, categoryId))) throw new NotFoundError('Event category', categoryId);
}

export function createEventsService({ db }: { db: Db }) {
  async function loadEvent(tx: Db, tenantId: number, id: number): Promise<EventItem> {
    const event = await repo.findEvent(tx, tenantId, id);
    if (!event) throw new NotFoundError('Event', id);
    return event;
  }

  return {
    list: (auth: Principal, query: ListEventsQuery) =>
      withTenant(db, auth, async (tx) => {
        const page = toPage(query);
        const scope = await loadGroupScope(tx, auth);
        const filter: repo.EventFilter = { groupId: query.groupId, categoryId: query.categoryId, from: query.from, to: query.to, q: query.q };
        if (query.groupId !== undefined) {
          // A filter naming an unknown or invisible group lists nothing (api-contract §2).
          const group = await repo.findHostGroup(tx, auth.tenantId, query.groupId);
          if (!group || !isGroupVisible(scope, group)) return pageResult(page, [], 0);
          if (query.includeSubgroups) filter.subtreePath = group.path;
        }
        const { items, total } = await repo.listEvents(tx, auth.tenantId, scope, filter, page);
        return pageResult(page, items, total);
      }),

    get: (auth: Principal, id: number): Promise<EventDetail> =>
      withTenant(db, auth, async (tx) => {
        // A fixed number of queries whatever the event holds: event, rosters, activities (+ their contacts).
        const access = await readableEvent(tx, auth, id);
        // Each list is bounded (ROSTER_IN_READ) with its count beside it; the rest through the list routes.
        const rosters = await eventRosters(tx, auth.tenantId, id);
        const activities = await pageActivities(tx, auth.tenantId, id, { page: 1, limit: ROSTER_IN_READ, offset: 0 });
        return { ...repo.eventItemOf(access), ...rosters, activities: activities.items, activityCount: activities.total };
      }),

    create: (auth: Principal, body: CreateEventBody) =>
      withTenant(db, auth, async (tx) => {
        const endDate = body.endDate ?? body.startDate;
        checkDates(body.startDate, endDate);
        checkMetaData(body.metaData);
        const scope = await loadGroupScope(tx, auth);
        await assertHostable(tx, auth, scope, body.groupId ?? null);
        await checkCategory(tx, auth.tenantId, body.categoryId);
        const id = await repo.insertEvent(tx, auth.tenantId, {
          name: body.name,
          description: body.description ?? null,
          startDate: body.startDate,
          endDate,
          groupId: body.groupId ?? null,
          categoryId: body.categoryId ?? null,
          metaData: body.metaData ?? {},
        });
        const created = await loadEvent(tx, auth.tenantId, id);
        await recordChanges(tx, auth, [{
          type: 'event.created', entityId: id,
          data: { eventId: id, groupId: body.groupId ?? null, name: body.name, startDate: body.startDate, endDate },
        }]);
        return created;
      }),

    update: (auth: Principal, id: number, body: UpdateEventBody) =>
      withTenant(db, auth, async (tx) => {
        const { event, scope } = await writableEvent(tx, auth, id);
        checkDates(body.startDate ?? event.startDate, body.endDate ?? event.endDate);
        checkMetaData(body.metaData);
        if (body.groupId !== undefined && body.groupId !== event.groupId) await assertHostable(tx, auth, scope, body.groupId);
        await checkCategory(tx, auth.tenantId, body.categoryId);
        const { name, description, startDate, endDate, groupId, categoryId, metaData } = body;
        const changes = Object.fromEntries(
          Object.entries({ name, description, startDate, endDate, groupId, categoryId, metaData }).filter(([, v]) => v !== undefined),
        ) as Partial<repo.NewEventValues>;
        await repo.updateEvent(tx, auth.tenantId, id, changes);
        const diff = fieldChanges(event as unknown as Record<string, unknown>, changes);
        if (diff) {
          await recordChanges(tx, auth, [{
            type: 'event.updated', entityId: id, changes: diff,
            data: { eventId: id, groupId: groupId !== undefined ? groupId : event.groupId, name: name ?? event.name },
          }]);
        }
        return loadEvent(tx, auth.tenantId, id);
      }),

    remove: (auth: Principal, id: number) =>
      withTenant(db, auth, async (tx) => {
        const { event } = await writableEvent(tx, auth, id);
        // Registrations, attendance and activities go with it (foreign keys cascade).
        await repo.deleteEvent(tx, auth.tenantId, id);
        await recordChanges(tx, auth, [{ type: 'event.deleted', entityId: id, data: { eventId: id, groupId: event.groupId, name: event.name, startDate: event.startDate } }]);
      }),
  };
}

export type EventsService = ReturnType<typeof createEventsService>;
