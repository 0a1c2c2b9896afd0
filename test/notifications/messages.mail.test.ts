import { describe, expect, it } from 'vitest';
import { api, setupTestApp } from '../helpers/app.js';
import { newPerson } from '../helpers/contacts.factories.js';
import { newTenant, newUser } from '../helpers/factories.js';
import { setupSmtpTestApp } from '../helpers/notifications.factories.js';

/**
 * Issue 34: an email says who it is from (MAIL_FROM) and where replies go (the sender's own email);
 * without SMTP nothing leaves the server, so the message and its deliveries say Logged, not Sent.
 */
const M = '/api/notifications/messages';

describe('through a real SMTP server: From is MAIL_FROM, Reply-To the church\'s reply-to address or the sender', () => {
  const ctx = setupSmtpTestApp({ mailFrom: 'Grace Chapel <office@grace.example.org>' });

  it('each email carries the configured From and the sending user\'s email as Reply-To; the message ends Sent', async () => {
    const t = await newTenant(ctx);
    const sender = await newUser(ctx, t, ['notifications:send', 'contacts:read'], { email: 'pastor.john@grace.example.org' });
    const ada = await newPerson(ctx, t, 'Ada', 'Lovelace', { emails: [{ value: 'ada@example.org', isPrimary: true }] });
    const res = await api(ctx.app, sender.token).post(M, { channel: 'Email', audience: { contactIds: [ada.id] }, subject: 'Hello {{firstName}}', body: 'See you Sunday.' });
    expect(res.statusCode, res.body).toBe(202);
    await ctx.app.worker.drain();
    const [mail] = ctx.smtp.mails.filter((m) => m.subject === 'Hello Ada');
    expect(mail.from).toBe('office@grace.example.org');
    expect(mail.raw).toMatch(/^From: Grace Chapel <office@grace\.example\.org>$/m);
    expect(mail.raw).toMatch(/^Reply-To: pastor\.john@grace\.example\.org$/m);
    expect((await api(ctx.app, sender.token).get(`${M}/${res.json().id}`)).json()).toMatchObject({ status: 'Sent', sent: 1 });
  });

  it('with the church\'s reply-to address set (tenant settings), replies go there instead of the sender; cleared, to the sender again', async () => {
    const t = await newTenant(ctx);
    const sender = await newUser(ctx, t, ['notifications:send', 'contacts:read'], { email: 'pastor.mary@grace.example.org' });
    const ada = await newPerson(ctx, t, 'Ada', 'Lovelace', { emails: [{ value: 'ada@example.org', isPrimary: true }] });
    expect((await api(ctx.app, t.admin.token).put('/api/tenants/current', { replyTo: 'office@grace.example.org' })).json()).toMatchObject({ replyTo: 'office@grace.example.org' });
    const send = async (subject: string) => {
      const res = await api(ctx.app, sender.token).post(M, { channel: 'Email', audience: { contactIds: [ada.id] }, subject, body: 'See you Sunday.' });
      expect(res.statusCode, res.body).toBe(202);
      await ctx.app.worker.drain();
      return ctx.smtp.mails.filter((m) => m.subject === subject)[0];
    };
    const mail = await send('Church office');
    expect(mail.raw).toMatch(/^Reply-To: office@grace\.example\.org$/m);
    expect(mail.raw).not.toContain('pastor.mary');
    await api(ctx.app, t.admin.token).put('/api/tenants/current', { replyTo: null });
    expect((await send('From the pastor')).raw).toMatch(/^Reply-To: pastor\.mary@grace\.example\.org$/m);
  });
});

describe('without SMTP (mail goes to the log)', () => {
  const ctx = setupTestApp();

  it('the message and its deliveries end Logged, not Sent, and a Logged filter finds them', async () => {
    ctx.mailer.delivers = false;
    const t = await newTenant(ctx);
    const ada = await newPerson(ctx, t, 'Ada', 'Lovelace', { emails: [{ value: 'ada@example.org', isPrimary: true }] });
    const admin = api(ctx.app, t.admin.token);
    const res = await admin.post(M, { channel: 'Email', audience: { contactIds: [ada.id] }, subject: 'Hello', body: 'Hi {{firstName}}' });
    expect(res.statusCode, res.body).toBe(202);
    await ctx.app.worker.drain();
    expect(ctx.mailer.sent.map((m) => m.to)).toEqual(['ada@example.org']);
    const message = (await admin.get(`${M}/${res.json().id}`)).json();
    expect(message).toMatchObject({ status: 'Logged', sent: 1, failed: 0 });
    const deliveries = (await admin.get(`${M}/${res.json().id}/deliveries?status=Logged`)).json();
    expect(deliveries.data.map((d: { email: string; status: string }) => [d.email, d.status])).toEqual([['ada@example.org', 'Logged']]);
    expect((await admin.get(`${M}?status=Logged`)).json().data.map((m: { id: number }) => m.id)).toEqual([res.json().id]);
  });
});
