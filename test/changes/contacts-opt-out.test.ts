import { beforeAll, describe, expect, it } from 'vitest';
import { api, expectError, setupTestApp } from '../helpers/app.js';
import { newTenant, type TestTenant } from '../helpers/factories.js';
import { recorded } from './helpers.js';

/** modules-contract §6: contacts gain emailOptOut (default false), readable and writable through the contacts API. */
describe('contacts emailOptOut', () => {
  const ctx = setupTestApp();
  let t: TestTenant;
  beforeAll(async () => {
    t = await newTenant(ctx);
  });

  it('defaults to false; set on create and update; shown on the single read (the list item keeps its fields)', async () => {
    const admin = api(ctx.app, t.admin.token);
    const plain = (await admin.post('/api/crm/contacts', { category: 'Person', person: { firstName: 'Opt', lastName: 'In' } })).json();
    expect(plain.emailOptOut).toBe(false);
    const out = await admin.post('/api/crm/contacts', { category: 'Company', company: { name: 'Opt Out Ltd' }, emailOptOut: true });
    expect(out.statusCode).toBe(201);
    expect(out.json().emailOptOut).toBe(true);
    expect((await admin.get(`/api/crm/contacts/${out.json().id}`)).json().emailOptOut).toBe(true);

    const updated = await admin.put(`/api/crm/contacts/${plain.id}`, { emailOptOut: true });
    expect(updated.json().emailOptOut).toBe(true);
    // A PUT that leaves it out keeps it.
    expect((await admin.put(`/api/crm/contacts/${plain.id}`, { status: 'Inactive' })).json().emailOptOut).toBe(true);

    const back = await recorded(ctx, t.id, () => admin.put(`/api/crm/contacts/${plain.id}`, { emailOptOut: false }));
    expect(back.changes).toMatchObject([{ type: 'contact.updated', changes: { emailOptOut: { from: true, to: false } } }]);
    expectError(await admin.put(`/api/crm/contacts/${plain.id}`, { emailOptOut: 'no' }), 400);
  });

  it('a password reset through the emailed link records user.updated with the account as actor, without the password', async () => {
    const email = `admin@${t.slug}.example.org`;
    await api(ctx.app).post('/api/auth/forgot-password', { churchName: t.slug, email });
    let mail;
    for (let i = 0; i < 50 && !mail; i++) {
      mail = [...ctx.mailer.sent].reverse().find((m) => m.to === email);
      if (!mail) await new Promise((r) => setTimeout(r, 10));
    }
    const token = mail!.text.match(/reset-password\/([A-Za-z0-9_-]+)/)![1];
    const { result, changes } = await recorded(ctx, t.id, () => api(ctx.app).put(`/api/auth/reset-password/${token}`, { password: 'a brand new password' }));
    expect(result.statusCode).toBe(200);
    expect(changes).toMatchObject([{ type: 'user.updated', entityId: t.admin.id, actorUserId: t.admin.id, changes: null, data: { userId: t.admin.id, credentialChanged: true } }]);
    expect(JSON.stringify(changes)).not.toContain('a brand new password');
  });
});
