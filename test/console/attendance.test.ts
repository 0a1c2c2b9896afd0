import type { Page } from 'playwright-core';
import { expect, it } from 'vitest';
import { api } from '../helpers/app.js';
import { checkScreen, describeInBrowser, newPage, setupBrowser, signIn } from '../helpers/browser.js';
import { newPerson } from '../helpers/contacts.factories.js';
import { newTenant, PASSWORD } from '../helpers/factories.js';
import { addMembership, newGroup, newLeaderOf } from '../helpers/groups.factories.js';

const ctx = setupBrowser();

/** Today in UTC (the test tenants' time zone), and a date some days from it. */
const today = () => new Date().toISOString().slice(0, 10);
const daysFrom = (day: string, n: number) => {
  const d = new Date(`${day}T00:00:00Z`);
  d.setUTCDate(d.getUTCDate() + n);
  return d.toISOString().slice(0, 10);
};

/** Closes the toasts (they would hide the title in the screenshots), then checks and pictures the screen. */
async function screen(page: Page, name: string) {
  const toasts = page.getByRole('button', { name: 'Close the message' });
  for (const toast of await toasts.all()) await toast.click().catch(() => undefined);
  await expect.poll(() => toasts.count()).toBe(0);
  await page.evaluate(() => window.scrollTo(0, 0)); // the fixed header stays on top in the full-page pictures
  await checkScreen(page, name);
}

/** Opens a group's session from the landing page: the group by type-ahead, the date, "Take attendance". */
async function openGroupSession(page: Page, group: string, date: string) {
  await page.goto('/attendance');
  const card = page.getByRole('region', { name: 'A small group or fellowship' });
  await card.getByRole('combobox', { name: 'Group' }).fill(group.slice(0, 5));
  await page.getByRole('option', { name: new RegExp(`^${group}`) }).click();
  await card.getByLabel('Date').fill(date);
  await card.getByRole('button', { name: 'Take attendance' }).click();
  await page.getByRole('heading', { name: `${group} meeting` }).waitFor();
}

describeInBrowser('the console: attendance', { timeout: 240_000 }, () => {
  it('an usher on a phone takes a fellowship of eight in eight taps, adds a guest, and next week the same guest is matched by phone, not added twice', async () => {
    const t = await newTenant(ctx);
    const zone = await newGroup(ctx, t, { name: 'East Zone', category: 'Zone' });
    const fellowship = await newGroup(ctx, t, { name: 'Riverside Fellowship', parent: zone });
    const names = ['Achieng Odhiambo', 'Baraka Mutua', 'Chebet Kirui', 'Daudi Njoroge', 'Esther Wanjiru', 'Faith Akinyi', 'Gideon Otieno', 'Halima Hassan'];
    for (const full of names) {
      const [first, last] = full.split(' ');
      await addMembership(ctx, t, fellowship, (await newPerson(ctx, t, first, last)).id);
    }
    const usher = await newLeaderOf(ctx, t, zone);

    const page = await newPage(ctx);
    await page.setViewportSize({ width: 390, height: 844 });
    const posts: string[] = [];
    page.on('request', (r) => { if (r.method() === 'POST' && new URL(r.url()).pathname.endsWith('/records')) posts.push(r.url()); });
    await signIn(page, t.slug, usher.username, PASSWORD);
    await page.goto('/attendance');
    await page.getByText('No services yet.').waitFor();
    await screen(page, 'attendance-start');

    // Last week's meeting: eight taps for eight people.
    const lastWeek = daysFrom(today(), -7);
    await openGroupSession(page, 'Riverside Fellowship', lastWeek);
    const count = page.getByTestId('present-count');
    await expect(count.textContent()).resolves.toBe('0 present');
    for (const full of names) {
      const row = page.getByRole('checkbox', { name: full });
      expect((await row.boundingBox())!.height).toBeGreaterThanOrEqual(44);
      await row.click();
    }
    await expect.poll(() => count.textContent()).toBe('8 present');
    await page.getByText('All saved').waitFor();
    const sessions = (await api(ctx.app, usher.token).get(`/api/attendance/sessions?groupId=${fellowship.id}`)).json();
    expect(sessions.data).toHaveLength(1);
    const first = (await api(ctx.app, usher.token).get(`/api/attendance/sessions/${sessions.data[0].id}`)).json();
    expect(first.records).toHaveLength(8);
    expect(first.presentCount).toBe(8);
    expect(posts.length).toBeLessThanOrEqual(2); // taps in a row go in one bulk request
    await screen(page, 'attendance-roster');

    // A visitor.
    const guestForm = page.getByRole('region', { name: 'Add a guest' });
    await guestForm.getByLabel('First name').fill('Amani');
    await guestForm.getByLabel('Last name').fill('Okello');
    await guestForm.getByLabel('Phone').fill('0772 418 903');
    await guestForm.getByRole('button', { name: 'Add guest' }).click();
    await page.getByText('New guest added: Amani Okello').waitFor();
    await expect.poll(() => count.textContent()).toBe('9 present');
    await page.getByRole('region', { name: 'Who attended (9)' }).getByRole('row', { name: /Amani Okello\s*Guest\s*First time/ }).waitFor();
    await screen(page, 'attendance-guest-new');

    // This week: the same guest, typed differently, is the same person.
    await openGroupSession(page, 'Riverside Fellowship', today());
    await guestForm.getByLabel('First name').fill('amani');
    await guestForm.getByLabel('Last name').fill('OKELLO');
    await guestForm.getByLabel('Phone').fill('(0772) 418-903');
    await guestForm.getByRole('button', { name: 'Add guest' }).click();
    await page.getByText('Welcome back, Amani Okello — matched by phone').waitFor();
    await screen(page, 'attendance-guest-returning');
    const okellos = (await api(ctx.app, t.admin.token).get('/api/crm/contacts?q=okello')).json();
    expect(okellos.total).toBe(1);
    const feed = (await api(ctx.app, t.admin.token).get(`/api/attendance/records?contactId=${okellos.data[0].id}`)).json();
    expect(feed.data.map((r: { date: string; kind: string }) => [r.date, r.kind])).toEqual([[today(), 'Guest'], [lastWeek, 'Guest']]);
    await page.context().close();
  });
});
