import { recordChanges, type NewChange } from '../../changes/recorder.js';
import { withTenant, type Db } from '../../db/client.js';
import { BadRequestError, ConflictError, ForbiddenError, NotFoundError } from '../../lib/errors.js';
import type { Permission } from '../../lib/permissions.js';
import { pageResult, toPage } from '../../lib/pagination.js';
import type { Principal } from '../../plugins/auth.js';
// The one exception to "another module's service only": the denormalised list/search columns must be
// computed exactly as every contacts write computes them (see the report; it belongs in the service).
import { refreshSearchColumns } from '../contacts/contacts.service.js';
import { loadContact } from '../contacts/contacts.service.js';
import { mergeHouseholds, removeContact } from '../households/households.service.js';
import { ADMIN_PERMISSION, guardLastAdmin } from '../users/users.guard.js';
import { contactLinksCache } from './contact-links.js';
import { contactListItems, duplicatePairs } from './duplicates.repository.js';
import { withdrawResponsesMatching } from '../../plugins/idempotency.js';
import { disableErasedUser, eraseContactData, eraseFreeText, erasedValues, erasurePattern, linkedUsers, lockContacts, scrubAudit } from './erase.repository.js';
import { loadSections, NAMED_SECTIONS } from './export.repository.js';
import { mergeInto } from './merge.repository.js';
import type { DuplicatesQuery, EraseBody, MergeBody } from './privacy.schemas.js';

/** The named sections are always present (loadSections fills them, empty when their table does not exist). */
type ExportSections = Record<(typeof NAMED_SECTIONS)[number] | 'timeline', unknown[]> & Record<string, unknown[]>;

/**
 * An export is everything the tenant holds about the person (gifts, care requests, confidential
 * tasks, attendance in any group, the linked account, the whole timeline), unfiltered, because it is
 * the person's own copy. So only a caller who could read all of it through the API gets it: besides
 * privacy:write, every read permission of what it carries, and the whole group tree (issue 29).
 */
export const EXPORT_READS: readonly Permission[] = [
  'contacts:read', 'groups:read', 'events:read', 'attendance:read', 'tasks:read', 'care:read', 'finance:read', 'users:read', 'audit:read', 'hierarchy:all',
];

/** `idempotencySecret`: stored idempotent responses holding an erased person's values are withdrawn, and they are sealed with it. */
export function createPrivacyService(db: Db, idempotencySecret: string) {
  const contactLinks = contactLinksCache();

  async function exportContact(auth: Principal, id: number) {
    const missing = EXPORT_READS.filter((p) => !auth.permissions.has(p));
    if (missing.length) throw new ForbiddenError(`An export carries everything about the person, so it also needs ${missing.join(', ')}`);
    return withTenant(db, auth, async (tx) => {
      const contact = await loadContact(tx, auth, id);
      const sections = await loadSections(tx, auth.tenantId, id, await contactLinks(tx));
      return { exportedAt: new Date().toISOString(), contact, ...(sections as ExportSections) };
    });
  }

  async function eraseContact(auth: Principal, id: number, body: EraseBody) {
    if (body.confirm !== true) throw new BadRequestError('body/confirm must be true to erase a contact');
    const { tenantId } = auth;
    await withTenant(db, auth, async (tx) => {
      if ((await lockContacts(tx, tenantId, [id])).length === 0) throw new NotFoundError('Contact', id);
      const [user] = await linkedUsers(tx, tenantId, [id]);
      if (user?.id === auth.userId) throw new ForbiddenError('You cannot erase your own contact');
      const links = await contactLinks(tx);
      // The person's values, read before any of them goes: wherever else they were written, they are replaced.
      const pattern = erasurePattern(await erasedValues(tx, tenantId, id));
      // First the trail as it stands, then the writes below record changes with nothing personal in them.
      await scrubAudit(tx, tenantId, id, user?.id);
      await removeContact(tx, auth, id);
      await eraseContactData(tx, tenantId, id, links);
      if (pattern) {
        await eraseFreeText(tx, tenantId, pattern.sql);
        await withdrawResponsesMatching(tx, tenantId, idempotencySecret, (body) => pattern.js.test(body), `it held the values of contact ${id}, since erased`);
      }
      await refreshSearchColumns(tx, tenantId, [id]);
      const changes: NewChange[] = [];
      if (user) {
        const message = `Contact ${id} is linked to user ${user.id}, the last active user holding ${ADMIN_PERMISSION}; give it to another active user first`;
        await guardLastAdmin(tx, tenantId, message, () => disableErasedUser(tx, tenantId, user.id));
        if (user.status !== 'Disabled') changes.push({ type: 'user.disabled', entityId: user.id, data: { contactId: id, userId: user.id } });
      }
      changes.push({ type: 'contact.erased', entityId: id, data: { contactId: id, ...(user ? { userId: user.id } : {}) } });
      await recordChanges(tx, auth, changes);
    });
    return { erased: true };
  }

  async function listDuplicates(auth: Principal, query: DuplicatesQuery) {
    const page = toPage(query);
    return withTenant(db, auth, async (tx) => {
      const { rows, total } = await duplicatePairs(tx, auth.tenantId, page.limit, page.offset);
      const items = await contactListItems(tx, auth.tenantId, [...new Set(rows.flatMap((r) => [r.a, r.b]))]);
      const data = rows.map((r) => ({
        contacts: [items.get(r.a)!, items.get(r.b)!],
        reason: r.reason,
        reasons: r.reasons,
        score: r.points / 100,
      }));
      return pageResult(page, data, total);
    });
  }

  async function mergeContacts(auth: Principal, id: number, body: MergeBody) {
    const sourceIds = [...new Set(body.sourceIds)].sort((a, b) => a - b);
    if (sourceIds.includes(id)) throw new BadRequestError(`body/sourceIds must not include the surviving contact ${id}`);
    const { tenantId } = auth;
    return withTenant(db, auth, async (tx) => {
      const found = new Set((await lockContacts(tx, tenantId, [id, ...sourceIds])).map((c) => c.id));
      const missing = [id, ...sourceIds].filter((c) => !found.has(c));
      if (missing.length) throw new NotFoundError('Contact', missing);
      const users = await linkedUsers(tx, tenantId, [id, ...sourceIds]);
      const survivorUser = users.find((u) => u.contactId === id);
      const sourceUsers = users.filter((u) => u.contactId !== id);
      if (sourceUsers.length > 1 || (sourceUsers.length === 1 && survivorUser)) {
        const [first] = sourceUsers;
        const holder = survivorUser ? `contact ${id} is linked to user ${survivorUser.id}` : `contact ${sourceUsers[1].contactId} is linked to user ${sourceUsers[1].id}`;
        throw new ConflictError(`Contact ${first.contactId} is linked to user ${first.id} and ${holder}; a contact can have one user only`);
      }
      // Households first, in the order the sources were named (the first one's household moves).
      await mergeHouseholds(tx, auth, id, [...new Set(body.sourceIds)]);
      await mergeInto(tx, tenantId, id, sourceIds, await contactLinks(tx));
      await refreshSearchColumns(tx, tenantId, [id]);
      const moved = sourceUsers[0];
      await recordChanges(tx, auth, [
        ...sourceIds.map((s): NewChange => ({ type: 'contact.deleted', entityId: s, data: { contactId: s, mergedInto: id } })),
        ...(moved ? [{ type: 'user.updated', entityId: moved.id, changes: { contactId: { from: moved.contactId, to: id } }, data: { contactId: id, userId: moved.id } } as NewChange] : []),
        { type: 'contact.merged', entityId: id, data: { contactId: id, sourceIds } },
      ]);
      return loadContact(tx, auth, id);
    });
  }

  return { exportContact, eraseContact, listDuplicates, mergeContacts };
}

export type PrivacyService = ReturnType<typeof createPrivacyService>;
