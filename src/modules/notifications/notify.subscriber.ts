import { sql, type SQL } from 'drizzle-orm';
import type { ChangeEvent, ChangeSubscriber } from '../../changes/subscribers.js';
import { withTenant, type Db } from '../../db/client.js';
import { enqueueJobs, type JobHandler } from '../../jobs/queue.js';
import { effectivePreferences } from './inbox.service.js';
import { insertNotifications } from './inbox.repository.js';
import { readsOf } from './readers.js';
import { NOTIFICATION_TYPES, type NotificationType } from './notifications.schemas.js';

/**
 * Turns the changes of modules-contract §6 into in-app notifications and notification emails for
 * the people they concern, per each recipient's preferences. The actor of a change is never
 * notified of their own action, and nobody is told of a change they may not read (the change
 * feed's one rule, src/changes/readable.ts: e.g. a prayer request needs contacts:read, a missing
 * report reports:read) — checked when the notification is made and again when its email is sent.
 * Emails leave through the `notifications.email` job.
 */

interface Plan {
  userIds: number[];
  title: string;
  body: string;
  link: { entityType: string; entityId: number } | null;
}

type Rows<T> = { rows: T[] };
async function rows<T>(tx: Db, query: SQL): Promise<T[]> {
  return ((await tx.execute(query)) as unknown as Rows<T>).rows;
}

const ids = (list: { id: string | number }[]) => list.map((r) => Number(r.id));

/** An id from a change's data, or undefined: a malformed value must not make the subscriber throw (and retry forever). */
function idOf(value: unknown): number | undefined {
  const n = typeof value === 'number' || typeof value === 'string' ? Number(value) : NaN;
  return Number.isSafeInteger(n) && n > 0 ? n : undefined;
}

/** A contact's display name (a person's first and last name, or a company's name). */
async function contactName(tx: Db, tenantId: number, contactIdValue: unknown): Promise<string> {
  const contactId = idOf(contactIdValue);
  if (contactId === undefined) return 'Someone';
  const [row] = await rows<{ name: string }>(tx, sql`
    select coalesce(p.first_name || ' ' || p.last_name, co.name, 'Someone') as name from contacts c
    left join persons p on p.tenant_id = c.tenant_id and p.contact_id = c.id
    left join companies co on co.tenant_id = c.tenant_id and co.contact_id = c.id
    where c.tenant_id = ${tenantId} and c.id = ${contactId}`);
  return row?.name ?? 'Someone';
}

async function groupOf(tx: Db, tenantId: number, groupIdValue: unknown) {
  const groupId = idOf(groupIdValue);
  if (groupId === undefined) return undefined;
  const [row] = await rows<{ id: string | number; name: string; path: string }>(tx, sql`
    select id, name, path from groups where tenant_id = ${tenantId} and id = ${groupId}`);
  return row && { id: Number(row.id), name: row.name, path: row.path };
}

/**
 * Active users linked to contacts that lead (active Leader or Assistant) one of the groups whose
 * path is in `paths`; with `permission`, only those whose roles grant it.
 */
async function leaderUsers(tx: Db, tenantId: number, where: SQL, permission?: string): Promise<number[]> {
  return ids(await rows(tx, sql`
    select distinct u.id from users u
    join group_memberships m on m.tenant_id = u.tenant_id and m.contact_id = u.contact_id and m.is_active and m.role in ('Leader', 'Assistant')
    join groups g on g.tenant_id = m.tenant_id and g.id = m.group_id
    where u.tenant_id = ${tenantId} and u.status = 'Active' and ${where}
    ${permission ? sql`and exists (select 1 from user_roles ur join roles r on r.tenant_id = ur.tenant_id and r.id = ur.role_id
        where ur.tenant_id = u.tenant_id and ur.user_id = u.id and ${permission} = any(r.permissions))` : sql``}`));
}

/** '/1/5/9/' → ['/1/', '/1/5/', '/1/5/9/']: the group and its ancestors. */
function ancestorPaths(path: string): string[] {
  const parts = path.split('/').filter(Boolean);
  return parts.map((_, i) => `/${parts.slice(0, i + 1).join('/')}/`);
}

async function usersOfContact(tx: Db, tenantId: number, contactIdValue: unknown): Promise<number[]> {
  const contactId = idOf(contactIdValue);
  if (contactId === undefined) return [];
  return ids(await rows(tx, sql`select id from users where tenant_id = ${tenantId} and contact_id = ${contactId} and status = 'Active'`));
}

async function membershipRequest(tx: Db, change: ChangeEvent) {
  const [row] = await rows<{ group_id: string | number; contact_id: string | number }>(tx, sql`
    select group_id, contact_id from group_membership_requests where tenant_id = ${change.tenantId} and id = ${change.entityId}`);
  return {
    groupId: row ? Number(row.group_id) : change.data.groupId,
    contactId: row ? Number(row.contact_id) : change.data.contactId,
  };
}

const planners: Record<NotificationType, (tx: Db, change: ChangeEvent) => Promise<Plan | undefined>> = {
  'task.assigned': async (tx, c) => {
    const assignee = idOf(c.data.assigneeUserId);
    if (assignee === undefined) return undefined;
    const title = typeof c.data.title === 'string' ? c.data.title : `Task ${c.entityId}`;
    return { userIds: [assignee], title: 'A task was assigned to you', body: title, link: { entityType: 'task', entityId: c.entityId } };
  },

  'membership_request.created': async (tx, c) => {
    const { groupId, contactId } = await membershipRequest(tx, c);
    const group = await groupOf(tx, c.tenantId, groupId);
    if (!group) return undefined;
    const paths = ancestorPaths(group.path);
    // Whoever may decide it: leaders of the group or of a group above it, holding groups:write.
    const userIds = await leaderUsers(tx, c.tenantId, sql`g.path in (${sql.join(paths.map((p) => sql`${p}`), sql`, `)})`, 'groups:write');
    const who = await contactName(tx, c.tenantId, contactId);
    return { userIds, title: 'New membership request', body: `${who} asked to join ${group.name}`, link: { entityType: 'membership_request', entityId: c.entityId } };
  },

  'membership_request.approved': (tx, c) => decided(tx, c, 'approved'),
  'membership_request.rejected': (tx, c) => decided(tx, c, 'rejected'),

  'request.created': async (tx, c) => {
    const [request] = await rows<{ contact_id: string | number; type: string }>(tx, sql`
      select contact_id, type from contact_requests where tenant_id = ${c.tenantId} and id = ${c.entityId}`);
    const type = request?.type ?? c.data.type;
    if (type !== 'Prayer') return undefined;
    const contactId = request ? Number(request.contact_id) : idOf(c.data.contactId);
    if (contactId === undefined) return undefined;
    // The leaders of the contact's fellowship(s): the groups of the Fellowship category (level 6)
    // the contact is an active member of.
    const userIds = await leaderUsers(tx, c.tenantId, sql`g.id in (
      select fm.group_id from group_memberships fm
      join groups fg on fg.tenant_id = fm.tenant_id and fg.id = fm.group_id
      join group_categories fc on fc.tenant_id = fg.tenant_id and fc.id = fg.category_id
      where fm.tenant_id = ${c.tenantId} and fm.contact_id = ${contactId} and fm.is_active and (fc.level = 6 or lower(fc.name) = 'fellowship'))`);
    const who = await contactName(tx, c.tenantId, contactId);
    return { userIds, title: 'New prayer request', body: `${who} asked for prayer`, link: { entityType: 'request', entityId: c.entityId } };
  },

  'report.missing': async (tx, c) => {
    const group = await groupOf(tx, c.tenantId, c.data.groupId);
    if (!group) return undefined;
    const userIds = await leaderUsers(tx, c.tenantId, sql`g.id = ${group.id}`);
    const what = typeof c.data.templateName === 'string' ? c.data.templateName : 'its weekly report';
    const period = typeof c.data.periodStart === 'string' ? ` for the week of ${c.data.periodStart}` : '';
    return { userIds, title: 'Report missing', body: `${group.name} has not submitted ${what}${period}`, link: { entityType: 'group', entityId: group.id } };
  },

  'message.failed': async (tx, c) => {
    const [message] = await rows<{ created_by: string | number | null; subject: string; failed: number; recipient_count: number }>(tx, sql`
      select created_by, subject, failed, recipient_count from messages where tenant_id = ${c.tenantId} and id = ${c.entityId}`);
    const sender = idOf(message?.created_by ?? c.data.senderUserId);
    if (sender === undefined) return undefined;
    const body = message ? `"${message.subject}" could not be sent (${message.failed} of ${message.recipient_count} failed)` : 'A message could not be sent';
    return { userIds: [sender], title: 'Message failed', body, link: { entityType: 'message', entityId: c.entityId } };
  },
};

async function decided(tx: Db, c: ChangeEvent, outcome: 'approved' | 'rejected'): Promise<Plan | undefined> {
  const { groupId, contactId } = await membershipRequest(tx, c);
  const group = await groupOf(tx, c.tenantId, groupId);
  const userIds = await usersOfContact(tx, c.tenantId, contactId);
  const name = group?.name ?? 'the group';
  return {
    userIds,
    title: `Membership request ${outcome}`,
    body: `Your request to join ${name} was ${outcome}`,
    link: group ? { entityType: 'group', entityId: group.id } : null,
  };
}

export const notifySubscriber: ChangeSubscriber = {
  name: 'notifications.inbox',
  types: NOTIFICATION_TYPES,
  async handle(tx, change) {
    const plan = await planners[change.type as NotificationType]?.(tx, change);
    const planned = [...new Set(plan?.userIds ?? [])].filter((id) => Number.isSafeInteger(id) && id !== change.actorUserId);
    if (!plan || planned.length === 0) return;
    const reads = await readsOf(tx, change.tenantId, planned, [change.id]);
    const userIds = planned.filter((id) => reads.get(id)?.changeIds.has(change.id));
    if (userIds.length === 0) return;
    const recipients = await rows<{ id: string | number; email: Record<string, boolean> | null; in_app: Record<string, boolean> | null }>(tx, sql`
      select u.id, p.email, p.in_app from users u
      left join notification_preferences p on p.tenant_id = u.tenant_id and p.user_id = u.id
      where u.tenant_id = ${change.tenantId} and u.status = 'Active' and u.id in (${sql.join(userIds.map((id) => sql`${id}`), sql`, `)})
      order by u.id`);
    const type = change.type as NotificationType;
    const inApp: number[] = [];
    const byEmail: number[] = [];
    for (const r of recipients) {
      const prefs = effectivePreferences({ email: r.email ?? {}, inApp: r.in_app ?? {} });
      if (prefs.inApp[type]) inApp.push(Number(r.id));
      if (prefs.email[type]) byEmail.push(Number(r.id));
    }
    await insertNotifications(tx, change.tenantId, inApp.map((userId) => ({
      userId, type, title: plan.title, body: plan.body, entityType: plan.link?.entityType ?? null, entityId: plan.link?.entityId ?? null, changeId: change.id,
    })));
    await enqueueJobs(tx, change.tenantId, byEmail.map((userId) => ({
      kind: NOTIFICATION_EMAIL_JOB, payload: { userId, subject: plan.title, text: plan.body, changeId: change.id }, maxAttempts: 5,
    })));
  },
};

export const NOTIFICATION_EMAIL_JOB = 'notifications.email';

/** Sends one notification email to a user who may still read its change: the user's email, else their contact's primary email. */
export const notificationEmailJob: JobHandler = {
  async run(job, ctx) {
    const { userId, subject, text, changeId } = job.payload as { userId: number; subject: string; text: string; changeId?: number };
    const to = await withTenant(ctx.db, job.tenantId, async (tx) => {
      // Still allowed to read what it tells of (a user demoted since it was queued is not written to).
      if (changeId !== undefined && !(await readsOf(tx, job.tenantId, [Number(userId)], [Number(changeId)])).get(Number(userId))?.changeIds.has(Number(changeId))) return null;
      const [row] = await rows<{ email: string | null }>(tx, sql`
        select coalesce(u.email, (select e.value from contact_emails e where e.tenant_id = u.tenant_id and e.contact_id = u.contact_id
          order by e.is_primary desc, e.position, e.id limit 1)) as email
        from users u where u.tenant_id = ${job.tenantId} and u.id = ${Number(userId)} and u.status = 'Active'`);
      return row?.email ?? null;
    });
    if (!to) return; // nobody to write to: nothing to retry
    await ctx.mailer.send({ to, subject: `[Parish] ${subject}`, text });
  },
};

export { NOTIFICATION_TYPES };
