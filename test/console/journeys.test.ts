import { expect, it } from 'vitest';
import { api } from '../helpers/app.js';
import { checkScreen, describeInBrowser, newPage, setupBrowser, signIn } from '../helpers/browser.js';
import { newPerson } from '../helpers/contacts.factories.js';
import { newTenant, PASSWORD } from '../helpers/factories.js';
import { newGroup, newLeaderOf, newTree } from '../helpers/groups.factories.js';
import { roleId } from '../helpers/users.factories.js';

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

describeInBrowser('the console: journeys', { timeout: 180_000 }, () => {
  it('an admin finds a person by part of a phone number, fixes their email (a bad one shows the field error), adds them to a fellowship and sees it on the timeline', async () => {
    const t = await newTenant(ctx);
    const ruth = await newPerson(ctx, t, 'Ruth', 'Nakato', { phones: [{ value: '+256 772 418 903' }], emails: [{ value: 'ruth@old.example.org' }] });
    await newPerson(ctx, t, 'Samuel', 'Okello', { phones: [{ value: '+256 701 000 111' }] });
    await newGroup(ctx, t, { name: 'Kisaasi Fellowship', category: 'Fellowship' });
    const page = await newPage(ctx);
    await signIn(page, t.slug, 'admin', PASSWORD);

    await page.getByRole('navigation', { name: 'Areas' }).getByRole('link', { name: 'People' }).click();
    await page.getByLabel('Search people').fill('418 903');
    await page.getByText('1 person', { exact: true }).waitFor();
    await expect(page.getByRole('link', { name: 'Samuel Okello' }).count()).resolves.toBe(0);
    await checkScreen(page, 'people-list');
    await page.getByRole('link', { name: 'Ruth Nakato' }).click();
    await page.getByRole('heading', { name: 'Ruth Nakato' }).waitFor();
    await checkScreen(page, 'person');

    await page.getByRole('link', { name: 'Edit' }).click();
    const email = page.getByLabel('Email');
    await email.fill('ruth-at-example');
    await page.getByRole('button', { name: 'Save' }).click();
    await page.getByText('must be a valid email').waitFor();
    // The message is the email field's own (aria-describedby), and what was typed stays.
    await expect(email.getAttribute('aria-invalid')).resolves.toBe('true');
    await expect(email.inputValue()).resolves.toBe('ruth-at-example');
    await checkScreen(page, 'person-edit-error');
    await email.fill('ruth@new.example.org');
    await page.getByRole('button', { name: 'Save' }).click();
    await page.getByRole('heading', { name: 'Ruth Nakato' }).waitFor();
    await page.getByRole('link', { name: 'ruth@new.example.org' }).waitFor();

    await page.getByRole('combobox', { name: 'Add to a group' }).fill('Kisaasi');
    await page.getByRole('option', { name: 'Kisaasi Fellowship' }).click();
    await page.getByRole('button', { name: 'Add', exact: true }).click();
    await page.getByRole('region', { name: 'Groups' }).getByRole('link', { name: 'Kisaasi Fellowship' }).waitFor();
    await page.getByRole('region', { name: 'Timeline' }).getByText('Joined Kisaasi Fellowship as Member').waitFor();
    const stored = await api(ctx.app, t.admin.token).get(`/api/crm/contacts/${ruth.id}`);
    expect(stored.json().emails).toEqual([{ value: 'ruth@new.example.org', isPrimary: true }]);
    expect(stored.json().groupMemberships.map((m: { group: { name: string } }) => m.group.name)).toEqual(['Kisaasi Fellowship']);
    await page.context().close();
  });

  it('an invited user opens the email link, sets a password and lands on Home seeing only what their role allows', async () => {
    const t = await newTenant(ctx);
    await newTree(ctx, t);
    const email = `grace@${t.slug}.example.org`;
    const created = await api(ctx.app, t.admin.token).post('/api/users', {
      username: 'grace', email, invite: true, firstName: 'Grace', lastName: 'Auma', roleIds: [await roleId(ctx, t, 'Member')],
    });
    expect(created.statusCode, created.body).toBe(201);
    const link = /https:\/\/parish\.example\.org(\/reset-password\/\S+)/.exec((await mailTo(email)).text)![1];
    expect(link).toContain(`?church=${t.slug}`);

    const page = await newPage(ctx);
    await page.goto(link);
    await page.getByRole('heading', { name: 'Choose your password' }).waitFor();
    await expect(page.getByLabel(/^Church/).inputValue()).resolves.toBe(t.slug);
    await checkScreen(page, 'set-password');
    await page.getByLabel(/^Username/).fill('grace');
    await page.getByLabel(/^New password/).fill('short');
    await page.getByLabel(/^Repeat the new password/).fill('short');
    await page.getByRole('button', { name: 'Set password and sign in' }).click();
    // The API's message, beside the field it names.
    await page.getByText('must NOT have fewer than 8 characters').waitFor();
    await page.getByLabel(/^New password/).fill('a long new passphrase');
    await page.getByLabel(/^Repeat the new password/).fill('a long new passphrase');
    await page.getByRole('button', { name: 'Set password and sign in' }).click();
    await page.getByRole('heading', { name: 'Home' }).waitFor();

    const nav = page.getByRole('navigation', { name: 'Areas' });
    await expect(nav.getByRole('link').allTextContents()).resolves.toEqual(['Home', 'Groups', 'Messages']);
    await checkScreen(page, 'home-member');
    await page.goto('/people');
    await page.getByRole('heading', { name: 'Not available to you' }).waitFor();
    await page.context().close();
  });

  it('a leader sees only their subtree in Groups, with member counts, and opens a group', async () => {
    const t = await newTenant(ctx);
    // Private branches: public groups are visible to every reader (the API's rule), private ones only in a led subtree.
    const church = await newGroup(ctx, t, { name: 'Church', category: 'Church', privacy: 'Private' });
    const zoneA = await newGroup(ctx, t, { name: 'Zone A', category: 'Zone', parent: church, privacy: 'Private' });
    await newGroup(ctx, t, { name: 'Fellowship A2', category: 'Fellowship', parent: zoneA, privacy: 'Private' });
    const zoneB = await newGroup(ctx, t, { name: 'Zone B', category: 'Zone', parent: church, privacy: 'Private' });
    const clusterB = await newGroup(ctx, t, { name: 'Cluster B', category: 'Cluster', parent: zoneB, privacy: 'Private' });
    await newGroup(ctx, t, { name: 'Fellowship B1', category: 'Fellowship', parent: clusterB, privacy: 'Private' });
    const leader = await newLeaderOf(ctx, t, zoneB);
    const page = await newPage(ctx);
    await signIn(page, t.slug, leader.username, PASSWORD);
    await page.getByRole('navigation', { name: 'Areas' }).getByRole('link', { name: 'Groups' }).click();
    const treeView = page.getByRole('tree', { name: 'Groups' });
    await treeView.getByRole('link', { name: 'Cluster B' }).waitFor();
    await treeView.getByRole('button', { name: 'Open Cluster B' }).click();
    await treeView.getByRole('link', { name: 'Fellowship B1' }).waitFor();
    await expect(treeView.getByRole('treeitem').first().getByText('1 member').count()).resolves.toBe(1);
    for (const hidden of ['Church', 'Zone A', 'Fellowship A2']) await expect(treeView.getByRole('link', { name: hidden, exact: true }).count()).resolves.toBe(0);
    await checkScreen(page, 'groups-tree');
    await treeView.getByRole('link', { name: 'Zone B' }).click();
    await page.getByRole('heading', { name: 'Zone B' }).waitFor();
    await checkScreen(page, 'group');
    await page.context().close();
  });
});
