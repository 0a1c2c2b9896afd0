import { fieldChanges, recordChanges } from '../../changes/recorder.js';
import { takeReadAhead, withTenant, type Db } from '../../db/client.js';
import { NotFoundError } from '../../lib/errors.js';
import { pageResult, toPage } from '../../lib/pagination.js';
import type { Principal } from '../../plugins/auth.js';
import * as repo from './inbox.repository.js';
import { NOTIFICATION_TYPES, type ListNotificationsQuery, type Preferences, type UpdatePreferencesBody } from './notifications.schemas.js';

/** Stored overrides merged over the defaults (every type true on both channels). */
export function effectivePreferences(stored?: { email: Record<string, boolean>; inApp: Record<string, boolean> }): Preferences {
  const channel = (saved: Record<string, boolean> = {}) =>
    Object.fromEntries(NOTIFICATION_TYPES.map((t) => [t, saved[t] !== false])) as Preferences['email'];
  return { email: channel(stored?.email), inApp: channel(stored?.inApp) };
}

/** Preferences as flat keys (`email.task.assigned`), for a field-level from/to. */
function flatPreferences(p: Preferences): Record<string, boolean> {
  return Object.fromEntries((['email', 'inApp'] as const).flatMap((channel) => Object.entries(p[channel]).map(([type, on]) => [`${channel}.${type}`, on])));
}

/**
 * The caller's own inbox and preferences: any valid token, only their own rows. Changing one's
 * preferences records user.preferences_updated (entity: the user); marking notifications read
 * records nothing (a user's own inbox state).
 */
export function createInboxService({ db }: { db: Db }) {
  const unreadCountAhead = repo.unreadCountAhead(db);
  return {
    /** For the unread-count route's config: the count read with the principal check. */
    unreadCountAhead,

    list: (auth: Principal, query: ListNotificationsQuery) =>
      withTenant(db, auth, async (tx) => {
        const page = toPage(query);
        const { items, total } = await repo.pageNotifications(tx, auth.tenantId, auth.userId, query.unread, page);
        return pageResult(page, items, total);
      }),

    unreadCount: (auth: Principal) => {
      const ahead = takeReadAhead(auth, unreadCountAhead);
      if (ahead) return Promise.resolve({ count: Number(ahead[0][0]) });
      return withTenant(db, auth, async (tx) => ({ count: await repo.unreadCount(tx, auth.tenantId, auth.userId) }));
    },

    read: (auth: Principal, id: number) =>
      withTenant(db, auth, async (tx) => {
        const item = await repo.markRead(tx, auth.tenantId, auth.userId, id);
        if (!item) throw new NotFoundError('Notification', id);
        return item;
      }),

    readAll: (auth: Principal) => withTenant(db, auth, async (tx) => ({ updated: await repo.markAllRead(tx, auth.tenantId, auth.userId) })),

    preferences: (auth: Principal) => withTenant(db, auth, async (tx) => effectivePreferences(await repo.findPreferences(tx, auth.tenantId, auth.userId))),

    updatePreferences: (auth: Principal, body: UpdatePreferencesBody) =>
      withTenant(db, auth, async (tx) => {
        const pick = (input: Record<string, boolean | undefined> = {}) =>
          Object.fromEntries(NOTIFICATION_TYPES.filter((t) => typeof input[t] === 'boolean').map((t) => [t, input[t] as boolean]));
        const before = effectivePreferences(await repo.findPreferences(tx, auth.tenantId, auth.userId));
        await repo.savePreferences(tx, auth.tenantId, auth.userId, pick(body.email), pick(body.inApp));
        const after = effectivePreferences(await repo.findPreferences(tx, auth.tenantId, auth.userId));
        const diff = fieldChanges(flatPreferences(before), flatPreferences(after));
        if (diff) await recordChanges(tx, auth, [{ type: 'user.preferences_updated', entityId: auth.userId, changes: diff, data: { userId: auth.userId } }]);
        return after;
      }),
  };
}
