import { sql } from 'drizzle-orm';
import { fieldChanges, recordChanges } from '../../changes/recorder.js';
import { withTenant, type Db } from '../../db/client.js';
import { ConflictError, NotFoundError } from '../../lib/errors.js';
import { pageResult, toPage } from '../../lib/pagination.js';
import type { Principal } from '../../plugins/auth.js';
import { assertManageable, assertMetaData, manageableGroup } from '../groups/groups.access.js';
import { isGroupVisible, loadGroupScope } from '../groups/groups.visibility.js';
import { loadAttendanceScope } from './attendance.scope.js';
import type { CreateServiceBody, ListServicesQuery, ServiceItem, UpdateServiceBody } from './attendance.schemas.js';
import * as repo from './services.repository.js';

/** The wire fields of a service, for the {from, to} diff of service.updated. */
const fieldsOf = (s: ServiceItem) => ({
  name: s.name, groupId: s.group.id, dayOfWeek: s.dayOfWeek, startTime: s.startTime, frequency: s.frequency,
  headcountTypes: s.headcountTypes, isActive: s.isActive, metaData: s.metaData,
});

/** What every service change carries in data. */
const serviceData = (s: ServiceItem) => ({ serviceId: s.id, serviceName: s.name, groupId: s.group.id, groupName: s.group.name, isActive: s.isActive });

/** Services follow their group: visible with it (404 otherwise), written inside a led subtree (403). */
export function createServicesService(db: Db) {
  async function visibleService(tx: Db, auth: Principal, id: number) {
    const scope = await loadGroupScope(tx, auth);
    const row = await repo.findService(tx, auth.tenantId, id);
    if (!row || !isGroupVisible(scope, { id: row.group.id, path: row.groupPath, privacy: row.groupPrivacy })) throw new NotFoundError('Service', id);
    return { row, scope };
  }

  async function writableService(tx: Db, auth: Principal, id: number) {
    const found = await visibleService(tx, auth, id);
    assertManageable(found.scope, { id: found.row.group.id, path: found.row.groupPath } as Parameters<typeof assertManageable>[1]);
    return found;
  }

  return {
    list: (auth: Principal, query: ListServicesQuery) =>
      withTenant(db, auth, async (tx) => {
        const page = toPage(query);
        const scope = await loadAttendanceScope(tx, auth, query);
        if (scope.empty) return pageResult(page, [], 0);
        const active = query.isActive === undefined ? sql`` : sql`and sv.is_active = ${query.isActive}`;
        const { items, total } = await repo.pageServices(tx, auth.tenantId, sql`${scope.on(sql`sv.group_id`)} ${active}`, page.limit, page.offset);
        return pageResult(page, items.map(repo.toServiceItem), total);
      }),

    get: (auth: Principal, id: number): Promise<ServiceItem> =>
      withTenant(db, auth, async (tx) => repo.toServiceItem((await visibleService(tx, auth, id)).row)),

    create: (auth: Principal, body: CreateServiceBody): Promise<ServiceItem> =>
      withTenant(db, auth, async (tx) => {
        assertMetaData(body.metaData);
        const scope = await loadGroupScope(tx, auth);
        await manageableGroup(tx, auth, scope, body.groupId);
        const id = await repo.insertService(tx, auth.tenantId, body);
        const item = repo.toServiceItem((await repo.findService(tx, auth.tenantId, id))!);
        await recordChanges(tx, auth, [{ type: 'service.created', entityId: id, data: { ...serviceData(item), dayOfWeek: item.dayOfWeek, startTime: item.startTime, frequency: item.frequency } }]);
        return item;
      }),

    update: (auth: Principal, id: number, body: UpdateServiceBody): Promise<ServiceItem> =>
      withTenant(db, auth, async (tx) => {
        assertMetaData(body.metaData);
        const { scope, row } = await writableService(tx, auth, id);
        if (body.groupId !== undefined) await manageableGroup(tx, auth, scope, body.groupId);
        await repo.updateService(tx, auth.tenantId, id, body);
        const after = repo.toServiceItem((await repo.findService(tx, auth.tenantId, id))!);
        const changes = fieldChanges(fieldsOf(repo.toServiceItem(row)), fieldsOf(after));
        if (changes) await recordChanges(tx, auth, [{ type: 'service.updated', entityId: id, changes, data: serviceData(after) }]);
        return after;
      }),

    remove: (auth: Principal, id: number): Promise<void> =>
      withTenant(db, auth, async (tx) => {
        const { row } = await writableService(tx, auth, id);
        const sessions = await repo.sessionCountOf(tx, auth.tenantId, id);
        if (sessions > 0) throw new ConflictError(`Service ${id} has ${sessions} session(s); deactivate it (isActive: false) instead`);
        await repo.deleteService(tx, auth.tenantId, id);
        await recordChanges(tx, auth, [{ type: 'service.deleted', entityId: id, data: serviceData(repo.toServiceItem(row)) }]);
      }),
  };
}
