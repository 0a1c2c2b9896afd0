import { sql, type SQL } from 'drizzle-orm';
import type { Permission } from '../lib/permissions.js';
import type { ChangeType } from './types.js';

/**
 * What a principal may read of a change — the ONE rule of every reader of the change feed: the
 * audit log, the contact timeline, webhook deliveries (for the webhook's owner, at fan-out and
 * again at delivery), in-app and email notifications (for each recipient) and the privacy export's
 * timeline. A reader sees a change only when it could read the record the change is about through
 * the API at that moment:
 *
 * 1. its entity type's read permission (ENTITY_READ_PERMISSION: giving needs finance:read, tasks
 *    tasks:read, users users:read, …);
 * 2. a confidential change (`data.confidential`: confidential tasks, Counseling and Welfare
 *    requests) needs care:read, except the reader's own task;
 * 3. a change naming a group (a group change's own id, else `data.groupId`) needs that group to be
 *    visible to the reader (api-contract §4; a group that no longer exists: hierarchy:all);
 *
 * — or the change is about the reader's own task (as its assignee) or own membership request (as
 * the requester's contact), which the API shows them whatever their permissions; and of a change it may read, giving amounts (`amount` and every `…Amount` key, at any depth) are
 * left out without finance:read (redactChange).
 */

type EntityType = ChangeType extends `${infer E}.${string}` ? E : never;

/** The permission that reads each entity type's records through the API (null: any signed-in user). */
export const ENTITY_READ_PERMISSION: Record<EntityType, Permission | null> = {
  contact: 'contacts:read',
  relationship: 'contacts:read',
  request: 'contacts:read',
  saved_list: 'contacts:read',
  household: 'contacts:read',
  group: 'groups:read',
  group_category: 'groups:read',
  membership: 'groups:read',
  membership_request: 'groups:read',
  event: 'events:read',
  event_category: 'events:read',
  registration: 'events:read',
  attendance: 'attendance:read',
  checkin: 'attendance:read',
  service: 'attendance:read',
  session: 'attendance:read',
  contribution: 'finance:read',
  batch: 'finance:read',
  pledge: 'finance:read',
  fund: 'finance:read',
  task: 'tasks:read',
  pipeline: 'tasks:read',
  card: 'tasks:read',
  automation: 'tasks:read',
  report: 'reports:read',
  report_template: 'reports:read',
  message: 'notifications:send',
  message_template: 'notifications:send',
  user: 'users:read',
  role: 'roles:read',
  tenant: null,
  webhook: 'webhooks:write',
};

/** Who reads: a user's id, contact, permissions, and where it stands in the group hierarchy. */
export interface ChangeReader {
  userId: number;
  contactId: number;
  permissions: ReadonlySet<string>;
  /**
   * SQL: whether the group whose id is `groupId` (a bigint expression) is visible to the reader.
   * Built by the caller from the groups module's visibility rule (src/changes sits below the modules).
   */
  groupVisible: (groupId: SQL) => SQL;
}

/** The entity types whose records `permissions` may read. */
export function readableEntityTypes(permissions: ReadonlySet<string>): EntityType[] {
  return (Object.entries(ENTITY_READ_PERMISSION) as [EntityType, Permission | null][])
    .filter(([, permission]) => permission === null || permissions.has(permission))
    .map(([type]) => type);
}

/** The permission a change type needs (null: any signed-in user). */
export function readPermissionOf(type: ChangeType): Permission | null {
  return ENTITY_READ_PERMISSION[type.slice(0, type.indexOf('.')) as EntityType];
}

/** A jsonb id of `data` as a bigint, null unless it is a number. */
const dataId = (c: string, key: string) =>
  sql.raw(`(case when jsonb_typeof(${c}.data -> '${key}') = 'number' then (${c}.data ->> '${key}')::numeric::bigint end)`);

/**
 * SQL over a row of `changes` (alias `c`): the reader may read it (rules 1–3 above). Read in the
 * change's tenant (the caller filters on tenant_id).
 */
export function readableChangeSql(reader: ChangeReader, c = 'c'): SQL {
  const col = (name: string) => sql.raw(`${c}.${name}`);
  const types = readableEntityTypes(reader.permissions);
  const byType = types.length ? sql`${col('entity_type')} in (${sql.join(types.map((t) => sql`${t}`), sql`, `)})` : sql`false`;
  const ownTask = sql`(${col('entity_type')} = 'task' and ${col('data')} -> 'assigneeUserId' = to_jsonb(${reader.userId}::bigint))`;
  const ownRequest = sql`(${col('entity_type')} = 'membership_request' and ${col('data')} -> 'contactId' = to_jsonb(${reader.contactId}::bigint))`;
  const care = reader.permissions.has('care:read') ? sql`true` : sql`not (${col('data')} @> '{"confidential": true}'::jsonb)`;
  const groupId = sql`(case when ${col('entity_type')} = 'group' then ${col('entity_id')} else ${dataId(c, 'groupId')} end)`;
  const group = reader.permissions.has('hierarchy:all') ? sql`true` : sql`(${groupId} is null or ${reader.groupVisible(groupId)})`;
  return sql`(${ownTask} or ${ownRequest} or (${byType} and ${care} and ${group}))`;
}

/** Giving amounts are for finance:read: `amount` and any `…Amount` key. */
const AMOUNT_KEY = /^amount$|Amount$/;

function withoutAmounts(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(withoutAmounts);
  if (value && typeof value === 'object') {
    return Object.fromEntries(Object.entries(value).filter(([k]) => !AMOUNT_KEY.test(k)).map(([k, v]) => [k, withoutAmounts(v)]));
  }
  return value;
}

/** The fields of a readable change this reader may see: without finance:read, no amounts. */
export function redactChange<T extends { data: Record<string, unknown>; changes?: unknown }>(permissions: ReadonlySet<string>, change: T): T {
  if (permissions.has('finance:read')) return change;
  return {
    ...change,
    data: withoutAmounts(change.data) as Record<string, unknown>,
    ...(change.changes === undefined ? {} : { changes: withoutAmounts(change.changes) }),
  };
}

/** The rule in words, for the OpenAPI descriptions of every reader (audit, timeline, webhooks, export). */
export const CHANGE_READ_RULE =
  'A change is shown only to a principal who could read its record through the API at that moment: the read permission of its module ' +
  '(contacts, relationships, requests, households and saved lists contacts:read; groups, categories, memberships and membership requests groups:read; ' +
  'events and registrations events:read; attendance, check-ins, services and sessions attendance:read; contributions, batches, pledges and funds finance:read; ' +
  'tasks, pipelines, cards and automations tasks:read; reports and report templates reports:read; messages and message templates notifications:send; ' +
  'users users:read; roles roles:read; webhooks webhooks:write; tenant settings any user), care:read for confidential ones (confidential tasks, ' +
  'Counseling and Welfare requests), and a visible group when it names one (hierarchy:all for a group that no longer exists); one\'s own task ' +
  '(as assignee) and own membership request are always shown. Without finance:read, giving amounts (`amount` and every `…Amount` key) are left out.';
