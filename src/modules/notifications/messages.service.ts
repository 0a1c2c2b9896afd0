import { eq } from 'drizzle-orm';
import { recordChanges } from '../../changes/recorder.js';
import { tenants } from '../../db/schema/index.js';
import { withTenant, type Db } from '../../db/client.js';
import { enqueueJob } from '../../jobs/queue.js';
import { BadRequestError, ForbiddenError, NotFoundError } from '../../lib/errors.js';
import { pageResult, toPage } from '../../lib/pagination.js';
import type { Principal } from '../../plugins/auth.js';
import { visibleGroup } from '../groups/groups.access.js';
import { loadGroupScope } from '../groups/groups.visibility.js';
import { savedListContactIdsSql } from '../search/lists.service.js';
import { assertMergeFields, renderMergeFields } from './merge-fields.js';
import * as repo from './messages.repository.js';
import { MESSAGE_SEND_JOB } from './messages.jobs.js';
import type { CreateMessageBody, ListMessageDeliveriesQuery, ListMessagesQuery } from './notifications.schemas.js';
import { findTemplate } from './templates.repository.js';

/** The first skipped contacts a preview names (the counts cover them all). */
export const PREVIEW_SKIPPED_LIMIT = 100;

/** Checks that need no database: an audience at all, the reading rights it needs, known merge fields. */
function checkAudience(auth: Principal, body: CreateMessageBody): void {
  const { contactIds = [], groupIds = [], listId } = body.audience;
  if (contactIds.length === 0 && groupIds.length === 0 && listId === undefined) throw new BadRequestError('body/audience must name at least one of contactIds, groupIds, listId');
  // An audience reaches people only through what the sender may read (else 404 vs 202 and the deliveries would tell which ids exist and their addresses).
  if ((contactIds.length > 0 || listId !== undefined) && !auth.permissions.has('contacts:read')) throw new ForbiddenError('An audience of contactIds or a listId needs the contacts:read permission');
  if (groupIds.length > 0 && !auth.permissions.has('groups:read')) throw new ForbiddenError('An audience of groupIds needs the groups:read permission');
  if (body.subject !== undefined) assertMergeFields(body.subject, 'body/subject');
  if (body.body !== undefined) assertMergeFields(body.body, 'body/body');
}

/** The message's text (a template's unless overridden) and its audience resolved as the sender may see it (404s for what is missing or invisible). */
async function resolveMessage(tx: Db, auth: Principal, body: CreateMessageBody) {
  const { contactIds = [], groupIds = [], listId } = body.audience;
  const template = body.templateId === undefined ? undefined : await findTemplate(tx, auth.tenantId, body.templateId);
  if (body.templateId !== undefined && !template) throw new NotFoundError('Message template', body.templateId);
  const subject = body.subject ?? template?.subject;
  const text = body.body ?? template?.body;
  if (!subject) throw new BadRequestError('body/subject is required without a templateId');
  if (!text) throw new BadRequestError('body/body is required without a templateId');
  const missing = await repo.missingContacts(tx, auth.tenantId, contactIds);
  if (missing.length) throw new NotFoundError('Contact', missing);
  const scope = await loadGroupScope(tx, auth);
  const groupPaths: string[] = [];
  for (const groupId of [...new Set(groupIds)]) groupPaths.push((await visibleGroup(tx, auth, scope, groupId)).path);
  // A saved list is evaluated now, as the sender may see it (404 when not theirs nor shared).
  const listMembers = listId === undefined ? undefined : await savedListContactIdsSql(tx, auth, listId);
  const audience = { ...(contactIds.length ? { contactIds } : {}), ...(groupIds.length ? { groupIds } : {}), ...(listId !== undefined ? { listId } : {}) };
  const resolved: repo.Audience = { contactIds, groupPaths, scope, listMembers };
  return { subject, text, template, audience, resolved };
}

/** Email messages to audiences (notifications:send): queued here, sent by the messages.send job. */
export function createMessagesService({ db }: { db: Db }) {
  async function existingMessage(tx: Db, auth: Principal, id: number) {
    const message = await repo.findMessage(tx, auth.tenantId, id);
    if (!message) throw new NotFoundError('Message', id);
    return message;
  }

  return {
    create: (auth: Principal, body: CreateMessageBody) => {
      checkAudience(auth, body);
      return withTenant(db, auth, async (tx) => {
        const { subject, text, template, audience, resolved } = await resolveMessage(tx, auth, body);
        const id = await repo.insertMessage(tx, auth.tenantId, { subject, body: text, templateId: template?.id ?? null, audience, createdBy: auth.userId });
        const counts = await repo.insertDeliveries(tx, auth.tenantId, id, resolved);
        await enqueueJob(tx, auth.tenantId, { kind: MESSAGE_SEND_JOB, payload: { messageId: id } });
        // Who queued what for how many: not the body, nor the audience's addresses.
        await recordChanges(tx, auth, [{
          type: 'message.created', entityId: id,
          data: { messageId: id, subject, templateId: template?.id ?? null, recipientCount: counts.recipientCount, skipped: { noEmail: counts.noEmail, optedOut: counts.optedOut } },
        }]);
        return { id, status: 'Queued' as const, recipientCount: counts.recipientCount, skipped: { noEmail: counts.noEmail, optedOut: counts.optedOut } };
      });
    },

    /**
     * What POST /messages with the same body would do, writing nothing: the recipient count, the
     * skipped contacts and why (the first PREVIEW_SKIPPED_LIMIT by contact id; the counts cover all),
     * and the first recipient's rendered email (the one a send queues first).
     */
    preview: (auth: Principal, body: CreateMessageBody) => {
      checkAudience(auth, body);
      return withTenant(db, auth, async (tx) => {
        const { subject, text, resolved } = await resolveMessage(tx, auth, body);
        const result = await repo.previewAudience(tx, auth.tenantId, resolved, PREVIEW_SKIPPED_LIMIT);
        const [tenant] = await tx.select({ name: tenants.name }).from(tenants).where(eq(tenants.id, auth.tenantId));
        const contact = (p: repo.PreviewPerson) => ({ id: p.id, firstName: p.firstName, lastName: p.lastName });
        const first = result.first && {
          contact: contact(result.first),
          to: result.first.email!,
          subject: renderMergeFields(subject, { firstName: result.first.firstName, lastName: result.first.lastName, churchName: tenant.name }),
          body: renderMergeFields(text, { firstName: result.first.firstName, lastName: result.first.lastName, churchName: tenant.name }),
        };
        return {
          recipientCount: result.recipientCount,
          skippedCount: { noEmail: result.noEmail, optedOut: result.optedOut },
          skipped: result.skipped.map((p) => ({ contact: contact(p), reason: p.optedOut ? ('optedOut' as const) : ('noEmail' as const) })),
          first,
        };
      });
    },

    list: (auth: Principal, query: ListMessagesQuery) =>
      withTenant(db, auth, async (tx) => {
        const page = toPage(query);
        const { items, total } = await repo.pageMessages(tx, auth.tenantId, query.status, page);
        return pageResult(page, items, total);
      }),

    get: (auth: Principal, id: number) => withTenant(db, auth, (tx) => existingMessage(tx, auth, id)),

    /** The recipient list is contact data (names and addresses): also contacts:read. */
    deliveries: (auth: Principal, id: number, query: ListMessageDeliveriesQuery) =>
      withTenant(db, auth, async (tx) => {
        if (!auth.permissions.has('contacts:read')) throw new ForbiddenError('The recipient list of a message needs the contacts:read permission');
        await existingMessage(tx, auth, id);
        const page = toPage(query);
        const { items, total } = await repo.pageDeliveries(tx, auth.tenantId, id, query.status, page);
        return pageResult(page, items, total);
      }),
  };
}
