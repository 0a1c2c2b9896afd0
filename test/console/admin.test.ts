import fs from 'node:fs';
import http from 'node:http';
import path from 'node:path';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { api } from '../helpers/app.js';
import { describeInBrowser, newPage, screen, setupBrowser, signIn } from '../helpers/browser.js';
import { newTenant, PASSWORD } from '../helpers/factories.js';

const ctx = setupBrowser();

/** The mail the app sent to `to` (sent without being awaited by the request). */
async function mailTo(to: string) {
  for (let i = 0; i < 100; i++) {
    const mail = ctx.mailer.sent.find((m) => m.to === to);
    if (mail) return mail;
    await new Promise((r) => setTimeout(r, 20));
  }
  throw new Error(`no mail to ${to}`);
}

/** A real loopback HTTP receiver for the webhook's test ping. */
const received: { type: string; signature: string }[] = [];
let receiver: http.Server;
let hookUrl = '';
beforeAll(async () => {
  receiver = http.createServer((req, res) => {
    let body = '';
    req.on('data', (c) => (body += c));
    req.on('end', () => {
      received.push({ type: JSON.parse(body).type, signature: String(req.headers['parish-signature'] ?? '') });
      res.writeHead(200).end('ok');
    });
  });
  await new Promise<void>((resolve) => receiver.listen(0, '127.0.0.1', resolve));
  hookUrl = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/parish-hook`;
});
afterAll(() => new Promise<void>((resolve) => receiver.close(() => resolve())));

describeInBrowser('the console: admin', { timeout: 240_000 }, () => {
  it('an admin invites a Treasurer, who accepts, signs in and cannot open Admin; the admin sees roles, settings, a webhook ping and the audit log', async () => {
    const t = await newTenant(ctx);
    const page = await newPage(ctx);
    await signIn(page, t.slug, 'admin', PASSWORD);
    await page.getByRole('navigation', { name: 'Areas' }).getByRole('link', { name: 'Admin' }).click();
    await page.getByRole('heading', { name: 'Admin' }).waitFor();
    await screen(page, 'admin-index');

    // Users: invite, with the API's refusal shown first (a taken username), then the invitation.
    await page.getByRole('link', { name: 'Users' }).first().click();
    await page.getByRole('heading', { name: 'Users' }).waitFor();
    await page.getByText('1 user', { exact: true }).waitFor();
    await page.getByRole('button', { name: 'Invite someone' }).click();
    const email = `ruth@${t.slug}.example.org`;
    await page.getByLabel(/^First name/).fill('Ruth');
    await page.getByLabel(/^Last name/).fill('Nakato');
    await page.getByLabel(/^Username/).fill('admin');
    await page.getByLabel(/^Email/).fill(email);
    await page.getByRole('checkbox', { name: 'Treasurer' }).check();
    await page.getByRole('button', { name: 'Send invitation' }).click();
    await page.getByText('Username admin is already taken').waitFor();
    await screen(page, 'admin-users-invite-error');
    await page.getByLabel(/^Username/).fill('ruth');
    await page.getByRole('button', { name: 'Send invitation' }).click();
    await page.getByText('2 users', { exact: true }).waitFor();
    const row = page.getByRole('row').filter({ hasText: 'ruth' });
    await row.getByText('Invitation pending', { exact: true }).waitFor();
    await row.locator('span', { hasText: 'Treasurer' }).waitFor();
    const link = /https:\/\/parish\.example\.org(\/reset-password\/\S+)/.exec((await mailTo(email)).text)![1];
    // Resend: a second mail with a new link.
    await page.getByRole('button', { name: 'Send the invitation to ruth again' }).click();
    await page.getByText(`Invitation sent to ${email}`).first().waitFor();
    await screen(page, 'admin-users');

    // The invited Treasurer accepts, signs in, and has no Admin.
    const ruthPage = await newPage(ctx);
    await ruthPage.goto(link);
    await ruthPage.getByRole('heading', { name: 'Choose your password' }).waitFor();
    await ruthPage.getByLabel(/^Username/).fill('ruth');
    await ruthPage.getByLabel(/^New password/).fill('a long new passphrase');
    await ruthPage.getByLabel(/^Repeat the new password/).fill('a long new passphrase');
    await ruthPage.getByRole('button', { name: 'Set password and sign in' }).click();
    await ruthPage.getByRole('heading', { name: 'Home' }).waitFor();
    const nav = ruthPage.getByRole('navigation', { name: 'Areas' });
    const areas = await nav.getByRole('link').allTextContents();
    expect(areas).toContain('Giving');
    expect(areas).not.toContain('Admin');
    await ruthPage.goto('/admin');
    await ruthPage.getByRole('heading', { name: 'Not available to you' }).waitFor();
    await ruthPage.goto('/admin/users');
    await ruthPage.getByRole('heading', { name: 'Not available to you' }).waitFor();
    await screen(ruthPage, 'admin-treasurer-refused');
    await ruthPage.context().close();
    await page.reload();
    await page.getByRole('row').filter({ hasText: 'ruth' }).getByText('Active', { exact: true }).waitFor();
    await expect(page.getByRole('row').filter({ hasText: 'ruth' }).getByText('Invitation pending', { exact: true }).count()).resolves.toBe(0);

    // Disable and enable.
    await page.getByRole('button', { name: 'Disable ruth' }).click();
    await page.getByRole('button', { name: 'Enable ruth' }).waitFor();
    const ruth = (await api(ctx.app, t.admin.token).get('/api/users?q=ruth')).json().data[0];
    expect(ruth.status).toBe('Disabled');
    await page.getByRole('button', { name: 'Enable ruth' }).click();
    await page.getByRole('button', { name: 'Disable ruth' }).waitFor();

    // Roles: the matrix; built-in roles read-only; a new role gets a permission.
    await page.getByRole('navigation', { name: 'Admin sections' }).getByRole('link', { name: 'Roles' }).click();
    await page.getByRole('heading', { name: 'Roles' }).waitFor();
    await expect(page.getByRole('checkbox', { name: 'Treasurer: finance:write' }).isChecked()).resolves.toBe(true);
    await expect(page.getByRole('checkbox', { name: 'Treasurer: finance:write' }).isDisabled()).resolves.toBe(true);
    await page.getByRole('button', { name: 'New role' }).click();
    await page.getByLabel(/^Name/).fill('Ushers');
    await page.getByRole('button', { name: 'Create role' }).click();
    // The form closes after the new column shows, moving the table up: wait, or the click lands on the row below.
    await page.getByRole('form', { name: 'New role' }).waitFor({ state: 'detached' });
    const ushers = page.getByRole('checkbox', { name: 'Ushers: attendance:write' });
    await ushers.waitFor();
    await ushers.check();
    await page.getByText('Ushers may now use attendance:write').waitFor();
    const roles = (await api(ctx.app, t.admin.token).get('/api/roles?q=Ushers')).json().data;
    expect(roles[0].permissions).toEqual(['attendance:write']);
    await screen(page, 'admin-roles');

    // Church settings.
    await page.getByRole('navigation', { name: 'Admin sections' }).getByRole('link', { name: 'Church settings' }).click();
    await page.getByRole('heading', { name: 'Church settings' }).waitFor();
    await page.getByLabel(/^Church name/).fill('St. Paul Kisaasi');
    await page.getByLabel(/^Currency/).fill('ZZZ');
    await page.getByRole('button', { name: 'Save settings' }).click();
    await page.getByText('ZZZ is not an ISO 4217 code').waitFor();
    await expect(page.getByLabel(/^Currency/).getAttribute('aria-invalid')).resolves.toBe('true');
    await screen(page, 'admin-settings-error');
    await page.getByLabel(/^Currency/).fill('UGX');
    await page.getByLabel(/^Reply-to email/).fill('office@stpaul.example.org');
    await page.getByLabel(/^Church address/).fill('Plot 4, Kisaasi Road\nKampala');
    await page.getByLabel(/^Registration or tax number/).fill('UG-12345');
    await page.getByRole('textbox', { name: 'Paper size' }).or(page.getByRole('combobox', { name: 'Paper size' })).first().click();
    await page.getByRole('option', { name: 'Letter' }).click();
    await page.getByLabel(/^Closing sentence/).fill('Thank you for your generosity.');
    await page.getByRole('button', { name: 'Save settings' }).click();
    await page.getByText('Church settings saved').waitFor();
    const tenant = (await api(ctx.app, t.admin.token).get('/api/tenants/current')).json();
    expect(tenant).toMatchObject({
      name: 'St. Paul Kisaasi', currency: 'UGX', replyTo: 'office@stpaul.example.org', address: 'Plot 4, Kisaasi Road\nKampala',
      taxNumber: 'UG-12345', paperSize: 'Letter', statementClosing: 'Thank you for your generosity.',
    });
    await screen(page, 'admin-settings');

    // Webhooks: a new one against a real receiver, a test ping and its delivery.
    await page.getByRole('navigation', { name: 'Admin sections' }).getByRole('link', { name: 'Webhooks' }).click();
    await page.getByRole('heading', { name: 'Webhooks' }).waitFor();
    await screen(page, 'admin-webhooks-empty');
    await page.getByRole('button', { name: 'New webhook' }).click();
    await page.getByLabel(/^Address/).fill(hookUrl);
    await page.getByLabel(/^Description/).fill('Accounting system');
    await page.getByRole('button', { name: 'Create webhook' }).click();
    await page.getByText('Webhook created: copy its secret now').waitFor();
    await screen(page, 'admin-webhooks');
    await page.getByRole('link', { name: hookUrl }).click();
    await page.getByRole('heading', { name: 'Webhook' }).waitFor();
    await page.getByRole('button', { name: 'Send test ping' }).click();
    await page.getByText('Test ping queued').waitFor();
    await ctx.app.worker.drain();
    const delivery = page.getByRole('row').filter({ hasText: 'webhook.test' });
    await delivery.getByText('Succeeded').waitFor();
    await delivery.getByText('200', { exact: true }).waitFor();
    expect(received.map((r) => r.type)).toContain('webhook.test');
    expect(received.find((r) => r.type === 'webhook.test')!.signature).toMatch(/^t=\d+,v1=[0-9a-f]{64}$/);
    await screen(page, 'admin-webhook');

    // Audit log: filtered by action and user.
    await page.getByRole('navigation', { name: 'Admin sections' }).getByRole('link', { name: 'Audit log' }).click();
    await page.getByRole('heading', { name: 'Audit log' }).waitFor();
    await page.getByText(/changes, newest first/).waitFor();
    await page.getByRole('combobox', { name: 'Action' }).fill('tenant.upd');
    await page.getByRole('option', { name: 'tenant.updated' }).click();
    await page.getByText('1 change, newest first').waitFor();
    await page.getByText('St. Paul Kisaasi').first().waitFor();
    await screen(page, 'admin-audit');
    await page.getByLabel('From', { exact: true }).fill('2000-01-01');
    await page.getByLabel('To', { exact: true }).fill('2000-01-02');
    await page.getByText('No change matches these filters. Widen the dates or clear a filter.').waitFor();
    await page.context().close();
  });

  it('an admin imports a Planning Center CSV through the wizard: the dry run row by row, then the import, and finds the people and households it made', async () => {
    const t = await newTenant(ctx);
    const fixture = fs.readFileSync(path.resolve(import.meta.dirname, '../fixtures/import/planning-center-export.csv'), 'utf8');
    const grace = fixture.split('\n').find((l) => l.startsWith('30004'))!;
    // One more row without a last name: the dry run names its error.
    const csv = `${fixture.trimEnd()}\r\n${grace.trimEnd().replace('30004,,,Grace,,,Namutebi', '30005,,,Nameless,,,').replace(/grace@work[^,]*,[^,]*/, 'nameless@example.org,0772 300005')}\r\n`;
    const page = await newPage(ctx);
    await signIn(page, t.slug, 'admin', PASSWORD);
    await page.goto('/admin');
    await page.getByRole('link', { name: 'Import people' }).first().click();
    await page.getByRole('heading', { name: 'Import people' }).waitFor();
    await screen(page, 'admin-import-start');

    await page.locator('input[type=file]').setInputFiles({ name: 'planning-center.csv', mimeType: 'text/csv', buffer: Buffer.from(csv) });
    await page.getByText('Planning Center People', { exact: true }).waitFor();
    // The recognised columns are pre-selected.
    await expect(page.getByRole('textbox', { name: 'First name' }).or(page.getByRole('combobox', { name: 'First name' })).first().inputValue()).resolves.toBe('First Name');
    await expect(page.getByRole('combobox', { name: 'Email' }).inputValue()).resolves.toBe('Home Email');
    await expect(page.getByRole('combobox', { name: 'Household (family) id' }).inputValue()).resolves.toBe('Household ID');
    await screen(page, 'admin-import-columns');

    await page.getByRole('button', { name: 'Check the rows (dry run)' }).click();
    await page.getByText('5 rows checked, nothing written yet:').waitFor();
    const rows = page.getByRole('row');
    await rows.filter({ hasText: 'Daniel Okello' }).getByText('created').waitFor();
    await rows.filter({ hasText: 'Nameless' }).getByText('error').waitFor();
    await rows.filter({ hasText: 'Nameless' }).getByText(/lastName/).waitFor();
    expect((await api(ctx.app, t.admin.token).get('/api/crm/contacts?q=Okello')).json().total).toBe(0);
    await screen(page, 'admin-import-dry-run');

    await page.getByRole('button', { name: 'Import 4 rows' }).click();
    await page.getByRole('heading', { name: 'Import finished' }).waitFor();
    await page.getByText('Importing: 5 of 5 rows').waitFor({ state: 'detached' }).catch(() => undefined);
    await page.getByRole('link', { name: 'Grace Namutebi' }).waitFor();
    await screen(page, 'admin-import-done');
    await page.getByRole('link', { name: /Okello/ }).filter({ hasNotText: 'Daniel' }).filter({ hasNotText: 'Peggy' }).filter({ hasNotText: 'Tim' }).click();
    await page.getByRole('heading', { name: /Okello/ }).waitFor();
    await page.getByRole('link', { name: 'Daniel Okello' }).first().waitFor();
    await page.getByRole('link', { name: 'Tim Okello' }).first().waitFor();
    const stored = (await api(ctx.app, t.admin.token).get('/api/crm/contacts?q=Okello')).json();
    expect(stored.total).toBe(3);
    const households = (await api(ctx.app, t.admin.token).get('/api/crm/households')).json();
    expect(households.total).toBe(1);
    expect(households.data[0].members).toHaveLength(3);
    await page.context().close();
  });
});
