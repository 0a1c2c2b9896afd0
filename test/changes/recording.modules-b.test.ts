import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { api, expectError, setupTestApp } from '../helpers/app.js';
import { newTenant, newUser, type TestTenant, type TestUser } from '../helpers/factories.js';
import { newContact, newGroup, type TestGroup } from '../helpers/groups.factories.js';
import { startWebhookReceiver, type WebhookReceiver } from '../helpers/notifications.factories.js';
import { newPeoplePipeline, recordDirect } from '../helpers/tasks.factories.js';
import { recorded, storedChanges, type StoredChange } from './helpers.js';

/**
 * modules-contract §7 for pipelines, cards, automations, saved lists, message templates, messages,
 * webhooks and notification preferences: each write records its changes in its own transaction,
 * with actor, diff and data; a failed write records nothing; no webhook secret is ever recorded.
 */
describe('changes recorded by the tasks, search and notifications writes', () => {
  const ctx = setupTestApp();
  let t: TestTenant;
  let helper: TestUser;
  let group: TestGroup;
  let receiver: WebhookReceiver;
  beforeAll(async () => {
    t = await newTenant(ctx);
    helper = await newUser(ctx, t, ['tasks:read']);
    group = await newGroup(ctx, t, { name: 'Riverside' });
    receiver = await startWebhookReceiver();
  });
  afterAll(() => receiver?.close());
  const admin = () => api(ctx.app, t.admin.token);

  it('pipelines: created with its steps, updated with field and step from/to, deleted; nothing when nothing changes', async () => {
    const created = await recorded(ctx, t.id, () => admin().post('/api/tasks/pipelines', {
      name: 'Care', description: 'Hospital visits', steps: [{ name: 'Call', dueInDays: 1, assigneeUserId: helper.id }, { name: 'Visit', dueInDays: 3 }],
    }));
    expect(created.result.statusCode).toBe(201);
    const p = created.result.json();
    const [call, visit] = p.steps;
    expect(created.changes).toEqual([{
      id: expect.any(Number), type: 'pipeline.created', entityType: 'pipeline', entityId: p.id, actorUserId: t.admin.id, changes: null,
      data: {
        pipelineId: p.id, name: 'Care', isActive: true, stepIds: [call.id, visit.id],
        steps: [{ id: call.id, name: 'Call', dueInDays: 1, assigneeUserId: helper.id }, { id: visit.id, name: 'Visit', dueInDays: 3, assigneeUserId: null }],
      },
    }]);

    const updated = await recorded(ctx, t.id, () => admin().put(`/api/tasks/pipelines/${p.id}`, {
      name: 'Care team', description: 'Hospital visits', steps: [{ id: visit.id, name: 'Visit', dueInDays: 5 }, { name: 'Follow up', dueInDays: 10 }],
    }));
    expect(updated.result.statusCode).toBe(200);
    const followUp = updated.result.json().steps[1];
    expect(updated.changes).toHaveLength(1);
    expect(updated.changes[0]).toMatchObject({ type: 'pipeline.updated', entityId: p.id, actorUserId: t.admin.id });
    // description was sent unchanged: not in the diff. Step changes are part of pipeline.updated.
    expect(updated.changes[0].changes).toEqual({
      name: { from: 'Care', to: 'Care team' },
      steps: {
        from: [{ id: call.id, name: 'Call', dueInDays: 1, assigneeUserId: helper.id }, { id: visit.id, name: 'Visit', dueInDays: 3, assigneeUserId: null }],
        to: [{ id: visit.id, name: 'Visit', dueInDays: 5, assigneeUserId: null }, { id: followUp.id, name: 'Follow up', dueInDays: 10, assigneeUserId: null }],
      },
    });
    expect(updated.changes[0].data).toEqual({
      pipelineId: p.id, name: 'Care team', isActive: true, stepIds: [visit.id, followUp.id], addedStepIds: [followUp.id], removedStepIds: [call.id],
    });

    const deactivated = await recorded(ctx, t.id, () => admin().put(`/api/tasks/pipelines/${p.id}`, { isActive: false }));
    expect(deactivated.changes).toMatchObject([{ type: 'pipeline.updated', changes: { isActive: { from: true, to: false } }, data: { pipelineId: p.id, isActive: false } }]);
    expect(deactivated.changes[0].data).not.toHaveProperty('addedStepIds');

    const same = await recorded(ctx, t.id, () => admin().put(`/api/tasks/pipelines/${p.id}`, { name: 'Care team', isActive: false }));
    expect(same.result.statusCode).toBe(200);
    expect(same.changes).toEqual([]);

    const deleted = await recorded(ctx, t.id, () => admin().delete(`/api/tasks/pipelines/${p.id}`));
    expect(deleted.result.statusCode).toBe(204);
    expect(deleted.changes).toEqual([{
      id: expect.any(Number), type: 'pipeline.deleted', entityType: 'pipeline', entityId: p.id, actorUserId: t.admin.id, changes: null,
      data: { pipelineId: p.id, name: 'Care team', isActive: false },
    }]);
  });

  it('cards: created, moved (stepId from/to, then finished), removed — each before the task changes it causes', async () => {
    const contactId = await newContact(ctx, t, 'Cara', 'Card');
    const p = (await admin().post('/api/tasks/pipelines', { name: 'Follow-up', steps: [{ name: 'Call', dueInDays: 2 }, { name: 'Visit', dueInDays: 7 }] })).json();
    const [call, visit] = p.steps;

    const added = await recorded(ctx, t.id, () => admin().post(`/api/tasks/pipelines/${p.id}/cards`, { contactId, groupId: group.id, assigneeUserId: helper.id }));
    expect(added.result.statusCode, added.result.body).toBe(201);
    const cardId = added.result.json().id;
    expect(added.changes.map((c) => c.type)).toEqual(['card.created', 'task.created', 'task.assigned']);
    expect(added.changes[0]).toEqual({
      id: expect.any(Number), type: 'card.created', entityType: 'card', entityId: cardId, actorUserId: t.admin.id, changes: null,
      data: { contactId, pipelineId: p.id, groupId: group.id, assigneeUserId: helper.id, stepId: call.id, pipelineName: 'Follow-up', stepName: 'Call', status: 'Active' },
    });
    expect(added.changes[1].data).toMatchObject({ contactId, cardId });

    const moved = await recorded(ctx, t.id, () => admin().put(`/api/tasks/cards/${cardId}/move`, { direction: 'next' }));
    expect(moved.result.statusCode, moved.result.body).toBe(200);
    expect(moved.changes.map((c) => c.type)).toEqual(['card.moved', 'task.updated', 'task.completed', 'task.created', 'task.assigned']);
    expect(moved.changes[0]).toEqual({
      id: expect.any(Number), type: 'card.moved', entityType: 'card', entityId: cardId, actorUserId: t.admin.id,
      changes: { stepId: { from: call.id, to: visit.id } },
      data: { contactId, pipelineId: p.id, groupId: group.id, assigneeUserId: helper.id, fromStepId: call.id, toStepId: visit.id, fromStepName: 'Call', toStepName: 'Visit', status: 'Active' },
    });

    const finished = await recorded(ctx, t.id, () => admin().put(`/api/tasks/cards/${cardId}/move`, { direction: 'next' }));
    expect(finished.result.statusCode).toBe(200);
    expect(finished.changes.map((c) => c.type)).toEqual(['card.moved', 'task.updated', 'task.completed']);
    expect(finished.changes[0]).toMatchObject({
      changes: { stepId: { from: visit.id, to: null }, status: { from: 'Active', to: 'Completed' } },
      data: { contactId, pipelineId: p.id, fromStepId: visit.id, toStepId: null, toStepName: null, status: 'Completed' },
    });

    // A finished card cannot move (409) nor be removed again: nothing recorded.
    const refused = await recorded(ctx, t.id, () => admin().put(`/api/tasks/cards/${cardId}/move`, { stepId: call.id }));
    expect(refused.result.statusCode).toBe(409);
    expect(refused.changes).toEqual([]);
    const noop = await recorded(ctx, t.id, () => admin().delete(`/api/tasks/cards/${cardId}`));
    expect(noop.result.statusCode).toBe(204);
    expect(noop.changes).toEqual([]);

    const again = (await admin().post(`/api/tasks/pipelines/${p.id}/cards`, { contactId })).json();
    const removed = await recorded(ctx, t.id, () => admin().delete(`/api/tasks/cards/${again.id}`));
    expect(removed.result.statusCode).toBe(204);
    expect(removed.changes.map((c) => c.type)).toEqual(['card.deleted', 'task.updated']);
    expect(removed.changes[0]).toEqual({
      id: expect.any(Number), type: 'card.deleted', entityType: 'card', entityId: again.id, actorUserId: t.admin.id, changes: null,
      data: { contactId, pipelineId: p.id, groupId: null, assigneeUserId: null, stepId: call.id, status: 'Removed' },
    });
    expect(removed.changes[1]).toMatchObject({ changes: { status: { from: 'Open', to: 'Cancelled' } }, data: { cardId: again.id } });

    // A duplicate card (409) and a failed pipeline delete (it has cards: 409) record nothing.
    const third = (await admin().post(`/api/tasks/pipelines/${p.id}/cards`, { contactId })).json();
    expect(third.id).toEqual(expect.any(Number));
    const duplicate = await recorded(ctx, t.id, () => admin().post(`/api/tasks/pipelines/${p.id}/cards`, { contactId }));
    expect(duplicate.result.statusCode).toBe(409);
    expect(duplicate.changes).toEqual([]);
    const blocked = await recorded(ctx, t.id, () => admin().delete(`/api/tasks/pipelines/${p.id}`));
    expectError(blocked.result, 409);
    expect(blocked.changes).toEqual([]);
  });

  it('a card added by an automation records card.created with the worker as actor (no user)', async () => {
    const contactId = await newContact(ctx, t, 'Fay', 'First');
    const pipelineId = await newPeoplePipeline(ctx, t);
    const [{ id: changeId }] = await recordDirect(ctx, t, { type: 'attendance.first_visit', entityId: contactId, data: { contactId, groupId: group.id } }, null)
      .then((ids) => ids.map((id) => ({ id })));
    await ctx.app.worker.drain();
    const after = (await storedChanges(ctx, t.id, changeId)).filter((c) => c.type.startsWith('card.'));
    expect(after).toEqual([{
      id: expect.any(Number), type: 'card.created', entityType: 'card', entityId: expect.any(Number), actorUserId: null, changes: null,
      data: expect.objectContaining({ contactId, pipelineId, groupId: group.id, pipelineName: 'New people', stepName: 'Welcome call', status: 'Active' }),
    }]);
  });

  it('automations: created, updated with from/to, deleted; a 404 reference records nothing', async () => {
    const created = await recorded(ctx, t.id, () => admin().post('/api/tasks/automations', {
      name: 'Welcome', trigger: 'contact.created', action: { type: 'createTask', title: 'Welcome {contact}', dueInDays: 1 },
    }));
    expect(created.result.statusCode, created.result.body).toBe(201);
    const id = created.result.json().id;
    expect(created.changes).toEqual([{
      id: expect.any(Number), type: 'automation.created', entityType: 'automation', entityId: id, actorUserId: t.admin.id, changes: null,
      data: { automationId: id, name: 'Welcome', trigger: 'contact.created', isActive: true, actionType: 'createTask' },
    }]);

    const updated = await recorded(ctx, t.id, () => admin().put(`/api/tasks/automations/${id}`, { name: 'Welcome', isActive: false, conditions: { category: 'Person' } }));
    expect(updated.result.statusCode).toBe(200);
    expect(updated.changes).toEqual([{
      id: expect.any(Number), type: 'automation.updated', entityType: 'automation', entityId: id, actorUserId: t.admin.id,
      changes: { isActive: { from: true, to: false }, conditions: { from: {}, to: { category: 'Person' } } },
      data: { automationId: id, name: 'Welcome', trigger: 'contact.created', isActive: false, actionType: 'createTask' },
    }]);
    const same = await recorded(ctx, t.id, () => admin().put(`/api/tasks/automations/${id}`, { action: { type: 'createTask', title: 'Welcome {contact}', dueInDays: 1 } }));
    expect(same.result.statusCode).toBe(200);
    expect(same.changes).toEqual([]);

    const missing = await recorded(ctx, t.id, () => admin().put(`/api/tasks/automations/${id}`, { action: { type: 'addToPipeline', pipelineId: 999999 } }));
    expect(missing.result.statusCode).toBe(404);
    expect(missing.changes).toEqual([]);

    const deleted = await recorded(ctx, t.id, () => admin().delete(`/api/tasks/automations/${id}`));
    expect(deleted.result.statusCode).toBe(204);
    expect(deleted.changes).toMatchObject([{ type: 'automation.deleted', entityId: id, actorUserId: t.admin.id, changes: null, data: { automationId: id, name: 'Welcome' } }]);
  });

  it('saved lists: created, updated with from/to (criteria as stored), deleted', async () => {
    const kampala = { conditions: [{ field: 'city', operator: 'eq', value: 'Kampala' }] };
    const created = await recorded(ctx, t.id, () => admin().post('/api/search/lists', { name: 'Kampala people', criteria: kampala }));
    expect(created.result.statusCode, created.result.body).toBe(201);
    const id = created.result.json().id;
    expect(created.changes).toEqual([{
      id: expect.any(Number), type: 'saved_list.created', entityType: 'saved_list', entityId: id, actorUserId: t.admin.id, changes: null,
      data: { savedListId: id, name: 'Kampala people', shared: false, ownerUserId: t.admin.id },
    }]);

    const gulu = { conditions: [{ field: 'city', operator: 'eq', value: 'Gulu' }] };
    const updated = await recorded(ctx, t.id, () => admin().put(`/api/search/lists/${id}`, { name: 'Kampala people', criteria: gulu, shared: true }));
    expect(updated.result.statusCode, updated.result.body).toBe(200);
    expect(updated.changes).toEqual([{
      id: expect.any(Number), type: 'saved_list.updated', entityType: 'saved_list', entityId: id, actorUserId: t.admin.id,
      changes: {
        criteria: { from: { match: 'all', conditions: kampala.conditions, sort: 'lastName' }, to: { match: 'all', conditions: gulu.conditions, sort: 'lastName' } },
        shared: { from: false, to: true },
      },
      data: { savedListId: id, name: 'Kampala people', shared: true, ownerUserId: t.admin.id },
    }]);
    // The same criteria again (stored with its keys in another order): no change.
    const same = await recorded(ctx, t.id, () => admin().put(`/api/search/lists/${id}`, { criteria: gulu }));
    expect(same.result.statusCode).toBe(200);
    expect(same.changes).toEqual([]);

    const deleted = await recorded(ctx, t.id, () => admin().delete(`/api/search/lists/${id}`));
    expect(deleted.result.statusCode).toBe(204);
    expect(deleted.changes).toMatchObject([{ type: 'saved_list.deleted', entityId: id, actorUserId: t.admin.id, data: { savedListId: id, name: 'Kampala people' } }]);
  });

  it('message templates (created, updated with from/to, deleted; a name conflict records nothing) and messages (message.created without the body)', async () => {
    const T = '/api/notifications/templates';
    const created = await recorded(ctx, t.id, () => admin().post(T, { name: 'Welcome', subject: 'Welcome {{firstName}}', body: 'We are glad.' }));
    expect(created.result.statusCode, created.result.body).toBe(201);
    const id = created.result.json().id;
    expect(created.changes).toEqual([{
      id: expect.any(Number), type: 'message_template.created', entityType: 'message_template', entityId: id, actorUserId: t.admin.id, changes: null,
      data: { templateId: id, name: 'Welcome' },
    }]);
    const updated = await recorded(ctx, t.id, () => admin().put(`${T}/${id}`, { name: 'Welcome', body: 'We are very glad.' }));
    expect(updated.changes).toMatchObject([{ type: 'message_template.updated', entityId: id, changes: { body: { from: 'We are glad.', to: 'We are very glad.' } }, data: { templateId: id, name: 'Welcome' } }]);
    expect(Object.keys(updated.changes[0].changes!)).toEqual(['body']);
    await admin().post(T, { name: 'Other', subject: 'S', body: 'B' });
    const conflict = await recorded(ctx, t.id, () => admin().put(`${T}/${id}`, { name: 'other' }));
    expect(conflict.result.statusCode).toBe(409);
    expect(conflict.changes).toEqual([]);

    const contactId = await newContact(ctx, t, 'Mel', 'Mail');
    const message = await recorded(ctx, t.id, () => admin().post('/api/notifications/messages', { channel: 'Email', audience: { contactIds: [contactId] }, templateId: id }));
    expect(message.result.statusCode, message.result.body).toBe(202);
    const messageId = message.result.json().id;
    expect(message.changes).toEqual([{
      id: expect.any(Number), type: 'message.created', entityType: 'message', entityId: messageId, actorUserId: t.admin.id, changes: null,
      data: { messageId, subject: 'Welcome {{firstName}}', templateId: id, recipientCount: 0, skipped: { noEmail: 1, optedOut: 0 } },
    }]);
    expect(JSON.stringify(message.changes)).not.toContain('very glad');
    const bad = await recorded(ctx, t.id, () => admin().post('/api/notifications/messages', { channel: 'Email', audience: { contactIds: [999999] }, subject: 'S', body: 'B' }));
    expect(bad.result.statusCode).toBe(404);
    expect(bad.changes).toEqual([]);

    const deleted = await recorded(ctx, t.id, () => admin().delete(`${T}/${id}`));
    expect(deleted.result.statusCode).toBe(204);
    expect(deleted.changes).toMatchObject([{ type: 'message_template.deleted', entityId: id, data: { templateId: id, name: 'Welcome' } }]);
  });

  it('notification preferences: user.preferences_updated on the user with flat from/to; marking read records nothing', async () => {
    const u = api(ctx.app, helper.token);
    const put = await recorded(ctx, t.id, () => u.put('/api/notifications/preferences', { email: { 'task.assigned': false }, inApp: { 'request.created': true } }));
    expect(put.result.statusCode).toBe(200);
    expect(put.changes).toEqual([{
      id: expect.any(Number), type: 'user.preferences_updated', entityType: 'user', entityId: helper.id, actorUserId: helper.id,
      changes: { 'email.task.assigned': { from: true, to: false } }, data: { userId: helper.id },
    }]);
    const same = await recorded(ctx, t.id, () => u.put('/api/notifications/preferences', { email: { 'task.assigned': false } }));
    expect(same.changes).toEqual([]);
    const read = await recorded(ctx, t.id, () => u.put('/api/notifications/read-all'));
    expect(read.result.statusCode).toBe(200);
    expect(read.changes).toEqual([]);
  });

  it('webhooks: created, updated, secret rotated, test, redelivered, deleted — url and events in data, never a secret', async () => {
    const W = '/api/notifications/webhooks';
    const all: StoredChange[] = [];
    const secrets: string[] = [];
    const created = await recorded(ctx, t.id, () => admin().post(W, { url: receiver.url, events: ['contact.created'], description: 'CRM sync' }));
    expect(created.result.statusCode, created.result.body).toBe(201);
    const hook = created.result.json();
    secrets.push(hook.secret);
    all.push(...created.changes);
    expect(created.changes).toEqual([{
      id: expect.any(Number), type: 'webhook.created', entityType: 'webhook', entityId: hook.id, actorUserId: t.admin.id, changes: null,
      data: { webhookId: hook.id, url: receiver.url, events: ['contact.created'], isActive: true },
    }]);

    const updated = await recorded(ctx, t.id, () => admin().put(`${W}/${hook.id}`, { events: ['contact.created', 'webhook.secret_rotated'], description: 'CRM sync' }));
    expect(updated.result.statusCode).toBe(200);
    all.push(...updated.changes);
    expect(updated.changes).toEqual([{
      id: expect.any(Number), type: 'webhook.updated', entityType: 'webhook', entityId: hook.id, actorUserId: t.admin.id,
      changes: { events: { from: ['contact.created'], to: ['contact.created', 'webhook.secret_rotated'] } },
      data: { webhookId: hook.id, url: receiver.url, events: ['contact.created', 'webhook.secret_rotated'], isActive: true },
    }]);

    const rotated = await recorded(ctx, t.id, () => admin().post(`${W}/${hook.id}/rotate-secret`));
    expect(rotated.result.statusCode).toBe(200);
    secrets.push(rotated.result.json().secret);
    all.push(...rotated.changes);
    expect(rotated.changes).toEqual([{
      id: expect.any(Number), type: 'webhook.secret_rotated', entityType: 'webhook', entityId: hook.id, actorUserId: t.admin.id, changes: null,
      data: { webhookId: hook.id, url: receiver.url, events: ['contact.created', 'webhook.secret_rotated'], isActive: true },
    }]);
    // The webhook subscribed to its own rotation: it is told of it (type and ids), without any secret.
    await ctx.app.worker.drain();
    const told = receiver.received.find((r) => r.json.type === 'webhook.secret_rotated');
    expect(told?.json).toMatchObject({ entity: { type: 'webhook', id: hook.id }, data: { webhookId: hook.id } });
    for (const secret of secrets) expect(told!.raw).not.toContain(secret.slice(6));

    const tested = await recorded(ctx, t.id, () => admin().post(`${W}/${hook.id}/test`));
    all.push(...tested.changes);
    expect(tested.changes.map((c) => c.type)).toEqual(['webhook.test']);
    const deliveryId = tested.result.json().id;
    const redelivered = await recorded(ctx, t.id, () => admin().post(`${W}/deliveries/${deliveryId}/redeliver`));
    expect(redelivered.result.statusCode, redelivered.result.body).toBe(202);
    all.push(...redelivered.changes);
    expect(redelivered.changes).toEqual([{
      id: expect.any(Number), type: 'webhook.redelivered', entityType: 'webhook', entityId: hook.id, actorUserId: t.admin.id, changes: null,
      data: {
        webhookId: hook.id, url: receiver.url, events: ['contact.created', 'webhook.secret_rotated'], isActive: true,
        deliveryId: redelivered.result.json().id, redeliveryOf: deliveryId, changeId: tested.changes[0].id, changeType: 'webhook.test',
      },
    }]);
    const unknown = await recorded(ctx, t.id, () => admin().post(`${W}/deliveries/999999/redeliver`));
    expect(unknown.result.statusCode).toBe(404);
    expect(unknown.changes).toEqual([]);

    const badUpdate = await recorded(ctx, t.id, () => admin().put(`${W}/${hook.id}`, { events: ['no.such.type'] }));
    expect(badUpdate.result.statusCode).toBe(400);
    expect(badUpdate.changes).toEqual([]);

    const deleted = await recorded(ctx, t.id, () => admin().delete(`${W}/${hook.id}`));
    expect(deleted.result.statusCode).toBe(204);
    all.push(...deleted.changes);
    expect(deleted.changes).toMatchObject([{ type: 'webhook.deleted', entityId: hook.id, actorUserId: t.admin.id, data: { webhookId: hook.id, url: receiver.url } }]);
    const gone = await recorded(ctx, t.id, () => admin().delete(`${W}/${hook.id}`));
    expect(gone.result.statusCode).toBe(404);
    expect(gone.changes).toEqual([]);

    // No secret (nor its encrypted form) anywhere in what was recorded about the webhook.
    const text = JSON.stringify(all);
    for (const secret of secrets) expect(text).not.toContain(secret.slice(6));
    expect(text).not.toMatch(/whsec_|v1:|secret"/i);
  });

  it('a receiver answering 410 Gone: the worker records webhook.updated (isActive true → false) with no user', async () => {
    const W = '/api/notifications/webhooks';
    const hook = (await admin().post(W, { url: receiver.url, events: ['role.created'] })).json();
    receiver.respond(410);
    try {
      const [changeId] = await recordDirect(ctx, t, { type: 'role.created', entityId: 1, data: {} }, null);
      await ctx.app.worker.drain();
      const after = (await storedChanges(ctx, t.id, changeId)).filter((c) => c.type.startsWith('webhook.'));
      expect(after).toEqual([{
        id: expect.any(Number), type: 'webhook.updated', entityType: 'webhook', entityId: hook.id, actorUserId: null,
        changes: { isActive: { from: true, to: false } },
        data: { webhookId: hook.id, url: receiver.url, events: ['role.created'], isActive: false, reason: 'The receiver answered 410 Gone' },
      }]);
      expect(JSON.stringify(after)).not.toContain(hook.secret.slice(6));
    } finally {
      receiver.respond(200);
    }
  });
});
