import { beforeAll, describe, expect, it } from 'vitest';
import { api, expectError, setupTestApp } from '../helpers/app.js';
import { newPerson } from '../helpers/contacts.factories.js';
import { newTenant, newUser, type TestTenant } from '../helpers/factories.js';
import { newGroup } from '../helpers/groups.factories.js';

const ctx = setupTestApp();
const M = '/api/notifications/messages';

/**
 * Issue 29: a message's audience and its recipient list are contact data. notifications:send alone
 * may not probe which contact ids exist (404 vs 202) nor read names and addresses from the deliveries.
 */
describe('messages: the audience follows the sender\'s reading rights', () => {
  let t: TestTenant;
  let contactId: number;
  let groupId: number;
  let messageId: number;
  beforeAll(async () => {
    t = await newTenant(ctx);
    contactId = (await newPerson(ctx, t, 'Ada', 'Secret', { emails: [{ value: 'ada.secret@example.org', isPrimary: true }] })).id;
    groupId = (await newGroup(ctx, t, { name: 'Open fellowship' })).id;
    const sent = await api(ctx.app, t.admin.token).post(M, { audience: { contactIds: [contactId] }, subject: 'Hello', body: 'Hi {{firstName}}' });
    expect(sent.statusCode, sent.body).toBe(202);
    messageId = sent.json().id;
  });

  it('contactIds and listId need contacts:read, groupIds groups:read (403, before anything is looked up)', async () => {
    const sendOnly = api(ctx.app, (await newUser(ctx, t, ['notifications:send'])).token);
    expect(expectError(await sendOnly.post(M, { audience: { contactIds: [contactId] }, subject: 'S', body: 'B' }), 403)).toMatch(/contacts:read/);
    // An id that does not exist answers the same: existence is not told.
    expectError(await sendOnly.post(M, { audience: { contactIds: [999999999] }, subject: 'S', body: 'B' }), 403);
    expect(expectError(await sendOnly.post(M, { audience: { listId: 1 }, subject: 'S', body: 'B' }), 403)).toMatch(/contacts:read/);
    expect(expectError(await sendOnly.post(M, { audience: { groupIds: [groupId] }, subject: 'S', body: 'B' }), 403)).toMatch(/groups:read/);

    const withGroups = api(ctx.app, (await newUser(ctx, t, ['notifications:send', 'groups:read'])).token);
    expect((await withGroups.post(M, { audience: { groupIds: [groupId] }, subject: 'S', body: 'B' })).statusCode).toBe(202);
    const withContacts = api(ctx.app, (await newUser(ctx, t, ['notifications:send', 'contacts:read'])).token);
    expect((await withContacts.post(M, { audience: { contactIds: [contactId] }, subject: 'S', body: 'B' })).statusCode).toBe(202);
  });

  it('the recipient list (names and addresses) needs contacts:read', async () => {
    const sendOnly = api(ctx.app, (await newUser(ctx, t, ['notifications:send', 'groups:read'])).token);
    const res = await sendOnly.get(`${M}/${messageId}/deliveries`);
    expect(expectError(res, 403)).toMatch(/contacts:read/);
    expect(res.body).not.toContain('ada.secret@example.org');
    // The message itself (counts, no addresses) stays readable.
    expect((await sendOnly.get(`${M}/${messageId}`)).json()).toMatchObject({ id: messageId, recipientCount: 1 });
    const reader = api(ctx.app, (await newUser(ctx, t, ['notifications:send', 'contacts:read'])).token);
    const list = (await reader.get(`${M}/${messageId}/deliveries`)).json();
    expect(list.data).toEqual([expect.objectContaining({ contact: { id: contactId, firstName: 'Ada', lastName: 'Secret' }, email: 'ada.secret@example.org' })]);
  });
});
