import { expect, it } from 'vitest';
import { api } from '../helpers/app.js';
import { newSession, record } from '../helpers/attendance.factories.js';
import { describeInBrowser, newPage, screen, setupBrowser, signIn } from '../helpers/browser.js';
import { newPerson } from '../helpers/contacts.factories.js';
import { newTenant, newUser, PASSWORD } from '../helpers/factories.js';
import { addMembership, newGroup, newLeaderOf } from '../helpers/groups.factories.js';

const ctx = setupBrowser();

describeInBrowser('the console: a group\'s requests and sessions', { timeout: 240_000 }, () => {
  it('a leader approves one membership request and rejects another, and opens the group\'s sessions; a plain member sees neither', async () => {
    const t = await newTenant(ctx);
    const group = await newGroup(ctx, t, { name: 'Ntinda Fellowship', category: 'Fellowship' });
    const leader = await newLeaderOf(ctx, t, group);
    const amina = await newPerson(ctx, t, 'Amina', 'Achieng');
    const brian = await newPerson(ctx, t, 'Brian', 'Ouma');
    const carol = await newPerson(ctx, t, 'Carol', 'Wanjiru');
    await addMembership(ctx, t, group, carol.id);
    for (const contactId of [amina.id, brian.id]) {
      const res = await api(ctx.app, t.admin.token).post('/api/groups/membership-request', { groupId: group.id, contactId });
      expect(res.statusCode, res.body).toBe(201);
    }
    const older = await newSession(ctx, t, { groupId: group.id }, '2026-11-01');
    const newer = await newSession(ctx, t, { groupId: group.id }, '2026-11-15');
    await record(ctx, t, newer.id, [carol.id]);

    const page = await newPage(ctx);
    await signIn(page, t.slug, leader.username, PASSWORD);
    await page.goto(`/groups/${group.id}`);
    await page.getByRole('heading', { name: 'Ntinda Fellowship' }).waitFor();
    const requests = page.getByRole('region', { name: 'Membership requests' });
    await requests.getByText('2 waiting').waitFor();
    const sessions = page.getByRole('region', { name: 'Sessions' });
    await sessions.getByText('2 sessions').waitFor();
    // Newest first, each linking to its roster in Attendance.
    const links = sessions.getByRole('link');
    await expect(links.first().getAttribute('href')).resolves.toBe(`/attendance/sessions/${newer.id}`);
    await expect(links.nth(1).getAttribute('href')).resolves.toBe(`/attendance/sessions/${older.id}`);
    await expect(sessions.getByRole('row').nth(1).textContent()).resolves.toMatch(/1/);
    await screen(page, 'group-requests');

    await requests.getByRole('button', { name: 'Approve Amina Achieng' }).click();
    await page.getByText('Amina Achieng joined Ntinda Fellowship').waitFor();
    await page.getByRole('region', { name: 'Members' }).getByRole('link', { name: 'Amina Achieng' }).waitFor();
    await requests.getByRole('button', { name: 'Reject Brian Ouma' }).click();
    await page.getByText('Brian Ouma\'s request was rejected').waitFor();
    await requests.getByText('No requests waiting.', { exact: false }).waitFor();
    await expect(page.getByRole('region', { name: 'Members' }).getByRole('link', { name: 'Brian Ouma' }).count()).resolves.toBe(0);
    await screen(page, 'group-requests-handled');

    // Nothing left pending; Amina is a member, Brian is not.
    expect((await api(ctx.app, t.admin.token).get(`/api/groups/membership-request?groupId=${group.id}`)).json().total).toBe(0);
    const members = (await api(ctx.app, t.admin.token).get(`/api/groups/${group.id}`)).json().members.map((m: { contactId: number }) => m.contactId);
    expect(members).toContain(amina.id);
    expect(members).not.toContain(brian.id);

    await links.first().click();
    await page.waitForURL(`**/attendance/sessions/${newer.id}`);
    await page.context().close();

    // A member of the group (groups:read, no attendance:read nor groups:write): members only.
    const member = await newUser(ctx, t, ['groups:read', 'contacts:read'], { contactId: carol.id, username: 'carol' });
    const other = await newPage(ctx);
    await signIn(other, t.slug, member.username, PASSWORD);
    await other.goto(`/groups/${group.id}`);
    await other.getByRole('heading', { name: 'Ntinda Fellowship' }).waitFor();
    await other.getByRole('region', { name: 'Members' }).getByText('Carol Wanjiru').waitFor();
    await expect(other.getByRole('region', { name: 'Membership requests' }).count()).resolves.toBe(0);
    await expect(other.getByRole('region', { name: 'Sessions' }).count()).resolves.toBe(0);
    await other.context().close();
  });

  it('a group without requests or sessions says what to do next', async () => {
    const t = await newTenant(ctx);
    const group = await newGroup(ctx, t, { name: 'Kireka Youth', category: 'Fellowship' });
    const page = await newPage(ctx);
    await signIn(page, t.slug, 'admin', PASSWORD);
    await page.goto(`/groups/${group.id}`);
    await page.getByRole('region', { name: 'Membership requests' }).getByText(/No requests waiting/).waitFor();
    await page.getByRole('region', { name: 'Sessions' }).getByText(/No meetings recorded yet/).waitFor();
    await screen(page, 'group-empty');
    await page.context().close();
  });
});
