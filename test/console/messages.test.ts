import { expect, it } from 'vitest';
import { recordChanges } from '../../src/changes/recorder.js';
import { withTenant } from '../../src/db/client.js';
import { MERGE_FIELDS } from '../../src/modules/notifications/merge-fields.js';
import { api } from '../helpers/app.js';
import { checkScreen, describeInBrowser, newPage, screen, setupBrowser, signIn } from '../helpers/browser.js';
import { newRecipient } from '../helpers/notifications.factories.js';
import { newTenant, newUser, PASSWORD, type TestTenant } from '../helpers/factories.js';
import { addMembership, newTree } from '../helpers/groups.factories.js';

const ctx = setupBrowser();

const person = (t: TestTenant, first: string, last: string, email?: string, extra: Record<string, unknown> = {}) => newRecipient(ctx, t, first, last, email, extra);

describeInBrowser('the console: messages', { timeout: 240_000 }, () => {
  it('a member reads their inbox, marks a notification read and turns off task emails; Compose is not theirs', async () => {
    const t = await newTenant(ctx);
    const member = await newUser(ctx, t, 'Member', { email: 'ruth@example.org' });
    for (const [id, title] of [[701, 'Call the first-time guests'], [702, 'Order chairs for Sunday']] as const) {
      await withTenant(ctx.db, t.id, (tx) => recordChanges(tx, { tenantId: t.id, userId: t.admin.id }, [{ type: 'task.assigned', entityId: id, data: { assigneeUserId: member.id, title } }]));
    }
    await ctx.app.worker.drain();

    const page = await newPage(ctx);
    await signIn(page, t.slug, member.username, PASSWORD);
    await page.getByRole('link', { name: 'Messages' }).click();
    await page.getByRole('heading', { name: 'Inbox' }).waitFor();
    await page.getByRole('listitem', { name: 'Unread: A task was assigned to you' }).first().waitFor();
    await expect(page.getByRole('listitem', { name: /A task was assigned to you/ }).count()).resolves.toBe(2);
    await expect(page.getByRole('tab', { name: 'Compose' }).count()).resolves.toBe(0);
    await checkScreen(page, 'messages-inbox');

    await page.getByRole('button', { name: 'Mark “A task was assigned to you” read' }).first().click();
    await expect.poll(async () => (await api(ctx.app, member.token).get('/api/notifications/unread-count')).json().count).toBe(1);
    await page.getByRole('listitem', { name: 'Unread: A task was assigned to you' }).nth(1).waitFor({ state: 'detached' });
    await page.getByText('Unread', { exact: true }).click();
    await expect.poll(() => page.getByRole('listitem', { name: /A task was assigned to you/ }).count()).toBe(1);

    await page.getByRole('tab', { name: 'Preferences' }).click();
    await page.getByRole('heading', { name: 'Notification preferences' }).waitFor();
    await page.getByRole('checkbox', { name: 'A task is assigned to me: by email' }).uncheck();
    await checkScreen(page, 'messages-preferences');
    await page.getByRole('button', { name: 'Save preferences' }).click();
    await page.getByText('Your notification preferences are saved').waitFor();
    const prefs = (await api(ctx.app, member.token).get('/api/notifications/preferences')).json();
    expect(prefs.email['task.assigned']).toBe(false);
    expect(prefs.inApp['task.assigned']).toBe(true);

    // Compose is not a member's: the address shows the inbox, and the API refuses.
    await page.goto('/messages/compose');
    await page.getByRole('heading', { name: 'Inbox' }).waitFor();
    expect((await api(ctx.app, member.token).post('/api/notifications/messages/preview', { audience: { contactIds: [member.contactId] }, subject: 's', body: 'b' })).statusCode).toBe(403);
    await page.context().close();
  });

  it('an administrator writes to a group with merge fields, checks the preview (count, first recipient, who is skipped and why), sends, and sees it sent', async () => {
    const t = await newTenant(ctx);
    const tree = await newTree(ctx, t);
    const ada = await person(t, 'Ada', 'Lovelace', 'ada@example.org');
    const grace = await person(t, 'Grace', 'Hopper', 'grace@example.org');
    const olga = await person(t, 'Olga', 'Optout', 'olga@example.org', { emailOptOut: true });
    const nemo = await person(t, 'Nemo', 'Nomail');
    for (const c of [ada, grace, olga, nemo]) await addMembership(ctx, t, tree.fellowshipA1, c);
    expect((await api(ctx.app, t.admin.token).post('/api/notifications/templates', { name: 'Welcome', subject: 'Welcome, {{firstName}}', body: 'We are glad you came.' })).statusCode).toBe(201);

    const page = await newPage(ctx);
    await signIn(page, t.slug, 'admin', PASSWORD);
    await page.goto('/messages/compose');
    await page.getByRole('heading', { name: 'Compose' }).waitFor();
    // Every merge field the API knows is offered.
    for (const key of MERGE_FIELDS) await page.getByRole('button', { name: new RegExp(`\\{\\{${key}\\}\\}`) }).waitFor();
    // A template fills in the subject and message (then written over below).
    await page.getByRole('combobox', { name: 'Start from a template' }).click();
    await page.getByRole('option', { name: 'Welcome' }).click();
    await expect(page.getByLabel('Subject').inputValue()).resolves.toBe('Welcome, {{firstName}}');
    await checkScreen(page, 'messages-compose-empty');

    await page.getByRole('combobox', { name: 'Group', exact: true }).fill('Fellowship A1');
    await page.getByRole('option', { name: 'Fellowship A1' }).click();
    await page.getByLabel('Subject').fill('Hello ');
    await page.getByRole('button', { name: 'Insert First name {{firstName}}' }).click();
    await expect(page.getByLabel('Subject').inputValue()).resolves.toBe('Hello {{firstName}}');
    await page.getByRole('textbox', { name: 'Message', exact: true }).fill('Dear ');
    await page.getByRole('button', { name: 'Insert First name {{firstName}}' }).click();
    await page.getByRole('textbox', { name: 'Message', exact: true }).press('End');
    await page.getByRole('textbox', { name: 'Message', exact: true }).pressSequentially(', see you on Sunday at {{churchName}}.');
    await expect(page.getByRole('textbox', { name: 'Message', exact: true }).inputValue()).resolves.toBe('Dear {{firstName}}, see you on Sunday at {{churchName}}.');
    await expect(page.getByRole('button', { name: 'Send', exact: true }).isDisabled()).resolves.toBe(true);

    const previewed = page.waitForResponse((r) => r.url().endsWith('/api/notifications/messages/preview'));
    await page.getByRole('button', { name: 'Preview' }).click();
    const preview = await (await previewed).json();
    expect(preview).toMatchObject({ recipientCount: 2, skippedCount: { noEmail: 1, optedOut: 1 }, first: { to: 'ada@example.org', subject: 'Hello Ada' } });
    const panel = page.getByRole('region', { name: 'Preview' });
    await panel.getByText('2 people receive this email').waitFor();
    await panel.getByText('To: Ada Lovelace <ada@example.org>').waitFor();
    await panel.getByText('Hello Ada', { exact: true }).waitFor();
    await panel.getByText(`Dear Ada, see you on Sunday at Church ${t.slug}.`).waitFor();
    const skipped = panel.getByRole('table', { name: 'Skipped' });
    await skipped.getByRole('row', { name: 'Olga Optout Opted out of email' }).waitFor();
    await skipped.getByRole('row', { name: 'Nemo Nomail No email address' }).waitFor();
    await checkScreen(page, 'messages-compose-preview');

    // Nothing is queued by the preview.
    expect((await api(ctx.app, t.admin.token).get('/api/notifications/messages')).json().total).toBe(0);
    await page.getByRole('button', { name: 'Send to 2 people' }).click();
    await page.getByRole('heading', { name: 'Sent messages' }).waitFor();
    await page.getByText('“Hello {{firstName}}” is on its way to 2 people').waitFor();

    const messages = (await api(ctx.app, t.admin.token).get('/api/notifications/messages')).json();
    expect(messages.total).toBe(1);
    expect(messages.data[0]).toMatchObject({ subject: 'Hello {{firstName}}', body: 'Dear {{firstName}}, see you on Sunday at {{churchName}}.', audience: { groupIds: [tree.fellowshipA1.id] }, recipientCount: 2, skipped: { noEmail: 1, optedOut: 1 } });
    await ctx.app.worker.drain();
    const done = (await api(ctx.app, t.admin.token).get(`/api/notifications/messages/${messages.data[0].id}`)).json();
    // The test server's mailer takes the emails (a server without SMTP_URL would log them: Logged).
    expect(done).toMatchObject({ status: 'Sent', sent: 2, failed: 0 });
    const mails = ctx.mailer.sent.filter((m) => m.subject.startsWith('Hello '));
    expect(mails.map((m) => [m.to, m.subject, m.text]).sort()).toEqual([
      ['ada@example.org', 'Hello Ada', `Dear Ada, see you on Sunday at Church ${t.slug}.`],
      ['grace@example.org', 'Hello Grace', `Dear Grace, see you on Sunday at Church ${t.slug}.`],
    ]);
    const row = page.getByRole('table', { name: 'Sent messages' }).getByRole('row', { name: /Hello \{\{firstName\}\}/ });
    await row.getByText('Sent', { exact: true }).waitFor({ timeout: 20_000 });
    expect(await row.locator('td').allTextContents()).toEqual(['Hello {{firstName}}', expect.any(String), 'Sent', '2', '2', '0', '1 without email, 1 opted out']);
    await screen(page, 'messages-sent');
    await page.context().close();
  });
});
