import type { Page } from 'playwright-core';
import { expect, it } from 'vitest';
import { api } from '../helpers/app.js';
import { newService, newSession, record, weeksBefore } from '../helpers/attendance.factories.js';
import { describeInBrowser, newPage, screen, setupBrowser, signIn } from '../helpers/browser.js';
import { newPerson } from '../helpers/contacts.factories.js';
import { newTenant, newUser, PASSWORD } from '../helpers/factories.js';
import type { TestTenant } from '../helpers/factories.js';
import { addMembership, newGroup, newLeaderOf } from '../helpers/groups.factories.js';

const ctx = setupBrowser();

/** Today in UTC (the test tenants' time zone), and a date some days from it. */
const today = () => new Date().toISOString().slice(0, 10);
const daysFrom = (day: string, n: number) => {
  const d = new Date(`${day}T00:00:00Z`);
  d.setUTCDate(d.getUTCDate() + n);
  return d.toISOString().slice(0, 10);
};

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

  it("an admin opens today's service from This Sunday (the API's warning shown), counts heads, and finds the session in the list by service", async () => {
    const t = await newTenant(ctx);
    const church = await newGroup(ctx, t, { name: 'Grace Church', category: 'Church' });
    const tomorrow = (new Date(`${today()}T00:00:00Z`).getUTCDay() + 1) % 7;
    const service = await newService(ctx, t, church.id, { name: 'Morning Worship', dayOfWeek: tomorrow, startTime: '09:30' });
    await newService(ctx, t, church.id, { name: 'Evening Prayer', dayOfWeek: tomorrow, startTime: '18:00' });
    const page = await newPage(ctx);
    await signIn(page, t.slug, 'admin', PASSWORD);
    await page.goto('/attendance');
    const card = page.getByRole('region', { name: 'Morning Worship' });
    await card.getByRole('button', { name: 'Take attendance' }).click();
    await page.getByRole('heading', { name: 'Morning Worship' }).waitFor();
    await page.getByText(/^Morning Worship meets on \w+days; \d{4}-\d\d-\d\d is a \w+day$/).waitFor();
    const headcounts = page.getByRole('region', { name: 'Headcounts' });
    await headcounts.getByLabel('Adults').fill('40');
    await headcounts.getByLabel('Children').fill('12');
    await headcounts.getByRole('button', { name: 'Save headcounts' }).click();
    await headcounts.getByText('Total counted: 52').waitFor();
    const listed = (await api(ctx.app, t.admin.token).get(`/api/attendance/sessions?serviceId=${service.id}`)).json();
    expect(listed.data).toHaveLength(1);
    expect(listed.data[0]).toMatchObject({ date: today(), headcountTotal: 52 });
    await screen(page, 'attendance-service-session');

    // Back on This Sunday the service's session is open: the button continues it (no second session).
    await page.goto('/attendance');
    await card.getByRole('button', { name: 'Continue attendance' }).waitFor();
    await screen(page, 'attendance-this-sunday');
    await page.goto('/attendance/sessions');
    await page.getByRole('combobox', { name: 'Service' }).click();
    await page.getByRole('option', { name: 'Morning Worship' }).click();
    await page.getByText('1 session', { exact: true }).waitFor();
    await page.getByRole('row', { name: /Morning Worship/ }).getByRole('cell', { name: '52' }).waitFor();
    await screen(page, 'attendance-sessions');
    await page.context().close();
  });

  it('the summary of a zone shows, chart then table, exactly the numbers the API returns, by week and by month', async () => {
    const t = await newTenant(ctx);
    const { zone, a, b, people } = await zoneWithTwoFellowships(t);
    const weeks = weeksBefore(today(), 3);
    for (const [i, date] of weeks.entries()) {
      const sa = await newSession(ctx, t, { groupId: a.id }, date);
      await record(ctx, t, sa.id, people.a.slice(0, 3 + (i % 2)));
      if (i === 1) await record(ctx, t, sa.id, [(await newPerson(ctx, t, 'Visiting', `Guest${i}`)).id], 'Guest');
    }
    const sb = await newSession(ctx, t, { groupId: b.id }, weeks[2]);
    await record(ctx, t, sb.id, people.b);
    const service = await newService(ctx, t, zone.id, { name: 'Zone Gathering', dayOfWeek: new Date(`${weeks[0]}T00:00:00Z`).getUTCDay() });
    const ss = await newSession(ctx, t, { serviceId: service.id }, weeks[0]);
    expect((await api(ctx.app, t.admin.token).put(`/api/attendance/sessions/${ss.id}/headcounts`, { counts: [{ type: 'Adults', count: 41 }, { type: 'Children', count: 17 }] })).statusCode).toBe(200);

    const page = await newPage(ctx);
    await signIn(page, t.slug, 'admin', PASSWORD);
    await page.goto('/attendance/summary');
    await page.getByRole('heading', { name: 'Attendance summary' }).waitFor();
    // The zone's answer for the default window (12 weeks) first, so that the one awaited below is the 4 weeks'.
    const zoneAnswer = (r: { url(): string }) => r.url().includes('/api/attendance/summary') && r.url().includes(`groupId=${zone.id}`);
    const defaultWindow = page.waitForResponse(zoneAnswer);
    await pickGroup(page, 'Group (with everything under it)', 'East Zone');
    await defaultWindow;
    const asked = page.waitForResponse(zoneAnswer);
    await page.getByRole('combobox', { name: 'Window' }).click();
    await page.getByRole('option', { name: 'Last 4 weeks' }).click();
    const answered = await asked;
    await page.getByRole('heading', { name: 'East Zone' }).waitFor();
    await page.locator('.recharts-surface').first().waitFor();
    await screen(page, 'attendance-summary-chart');

    await page.getByRole('button', { name: 'Show as table' }).click();
    const fromApi = (await api(ctx.app, t.admin.token).get(new URL(answered.url()).pathname + new URL(answered.url()).search)).json();
    expect(await answered.json()).toEqual(fromApi);
    expect(fromApi.totals).toMatchObject({ present: 3 + 4 + 1 + 3 + 3, guests: 1, headcount: 58 });
    await expectTable(page, fromApi);
    await screen(page, 'attendance-summary-table');

    const byMonth = page.waitForResponse((r) => r.url().includes('/api/attendance/summary') && r.url().includes('interval=month'));
    await page.getByText('Month', { exact: true }).click();
    const monthly = (await api(ctx.app, t.admin.token).get(new URL((await byMonth).url()).pathname + new URL((await byMonth).url()).search)).json();
    expect(monthly.interval).toBe('month');
    await expectTable(page, monthly);
    await page.context().close();
  });

  it('absentees of a zone, with their last attendance; one tap on "Follow up" creates a task the API lists', async () => {
    const t = await newTenant(ctx);
    const { zone, a, people } = await zoneWithTwoFellowships(t);
    const weeks = weeksBefore(today(), 4);
    for (const [i, date] of weeks.entries()) {
      const s = await newSession(ctx, t, { groupId: a.id }, date);
      await record(ctx, t, s.id, people.a.slice(0, i === 0 ? 4 : 2)); // Chebet and Daudi stopped coming; Esther never came
    }
    const leader = await newLeaderOf(ctx, t, zone);
    const page = await newPage(ctx);
    await signIn(page, t.slug, leader.username, PASSWORD);
    await page.goto('/attendance/absentees');
    await page.getByRole('heading', { name: 'Absentees' }).waitFor();
    await pickGroup(page, 'Group (with everything under it)', 'East Zone');
    await page.getByText('3 people missed the last 3 meetings of their group').waitFor();
    const expected = (await api(ctx.app, leader.token).get(`/api/attendance/absentees?groupId=${zone.id}`)).json();
    expect(expected.total).toBe(3);
    expect(expected.data.filter((x: { lastAttendedOn: string | null }) => x.lastAttendedOn === null)).toHaveLength(1);
    for (const x of expected.data) {
      const row = page.getByRole('row', { name: new RegExp(`${x.contact.firstName} ${x.contact.lastName}`) });
      await row.getByText(x.group.name, { exact: true }).first().waitFor();
      const last = x.lastAttendedOn ? new Date(`${x.lastAttendedOn}T00:00:00Z`).toLocaleDateString('en-US', { dateStyle: 'medium', timeZone: 'UTC' }) : 'Never';
      await row.getByText(last, { exact: true }).first().waitFor();
    }
    await screen(page, 'attendance-absentees');

    const who = expected.data[0].contact;
    await page.getByRole('button', { name: `Follow up ${who.firstName} ${who.lastName}` }).click();
    const done = page.getByRole('button', { name: `Task created for ${who.firstName} ${who.lastName}` });
    await done.waitFor();
    await expect(done.textContent()).resolves.toBe('Task created');
    await expect(done.getAttribute('aria-disabled')).resolves.toBe('true');
    const tasks = (await api(ctx.app, leader.token).get(`/api/tasks?contactId=${who.id}`)).json();
    expect(tasks.total).toBe(1);
    expect(tasks.data[0]).toMatchObject({ title: `Follow up ${who.firstName} ${who.lastName}`, contact: { id: who.id }, group: { id: a.id }, status: 'Open' });
    await screen(page, 'attendance-absentees-followed-up');
    await page.context().close();
  });
});

describeInBrowser('the console: attendance, read only', { timeout: 240_000 }, () => {
  it('a reader without attendance:write or tasks:write sees the sessions, who attended and the absentees, and no button that would be refused', async () => {
    const t = await newTenant(ctx);
    const { zone, a, people } = await zoneWithTwoFellowships(t);
    const weeks = weeksBefore(today(), 3);
    let last = 0;
    for (const date of weeks) last = (await newSession(ctx, t, { groupId: a.id }, date)).id;
    await record(ctx, t, last, people.a.slice(0, 2));
    await newService(ctx, t, zone.id, { name: 'Zone Gathering' });
    const reader = await newUser(ctx, t, ['attendance:read', 'groups:read', 'hierarchy:all']);
    const page = await newPage(ctx);
    await signIn(page, t.slug, reader.username, PASSWORD);
    await page.goto('/attendance');
    await page.getByRole('region', { name: 'Zone Gathering' }).getByText('No session today yet.').waitFor();
    await expect(page.getByRole('button', { name: 'Take attendance' }).count()).resolves.toBe(0);
    await expect(page.getByRole('region', { name: 'A small group or fellowship' }).count()).resolves.toBe(0);

    await page.goto(`/attendance/sessions/${last}`);
    await page.getByRole('heading', { name: 'Riverside Fellowship meeting' }).waitFor();
    await page.getByRole('region', { name: 'Who attended (2)' }).getByText('Achieng Riverside0').waitFor();
    await expect(page.getByRole('checkbox').count()).resolves.toBe(0);
    await expect(page.getByRole('region', { name: 'Add a guest' }).count()).resolves.toBe(0);
    await screen(page, 'attendance-session-read-only');

    await page.goto('/attendance/absentees');
    await pickGroup(page, 'Group (with everything under it)', 'East Zone');
    await page.getByText('3 people missed the last 3 meetings of their group').waitFor();
    await expect(page.getByRole('button', { name: /^Follow up/ }).count()).resolves.toBe(0);
    await page.context().close();
  });
});

/** A zone with two fellowships: five members in A, three in B. */
async function zoneWithTwoFellowships(t: TestTenant) {
  const zone = await newGroup(ctx, t, { name: 'East Zone', category: 'Zone' });
  const a = await newGroup(ctx, t, { name: 'Riverside Fellowship', parent: zone });
  const b = await newGroup(ctx, t, { name: 'Hillside Fellowship', parent: zone });
  const people = { a: [] as number[], b: [] as number[] };
  for (const [i, first] of ['Achieng', 'Baraka', 'Chebet', 'Daudi', 'Esther'].entries()) {
    const id = (await newPerson(ctx, t, first, `Riverside${i}`)).id;
    await addMembership(ctx, t, a, id);
    people.a.push(id);
  }
  for (const [i, first] of ['Faith', 'Gideon', 'Halima'].entries()) {
    const id = (await newPerson(ctx, t, first, `Hillside${i}`)).id;
    await addMembership(ctx, t, b, id);
    people.b.push(id);
  }
  return { zone, a, b, people };
}

/** Picks a group in a group field by type-ahead. */
async function pickGroup(page: Page, label: string, group: string) {
  await page.getByRole('combobox', { name: label }).fill(group.slice(0, 4));
  await page.getByRole('option', { name: new RegExp(`^${group}`) }).click();
}

interface SummaryAnswer {
  data: { sessions: number; present: number; guests: number; firstTime: number; headcount: number; averagePresent: number }[];
  totals: { sessions: number; present: number; guests: number; firstTime: number; headcount: number };
}

/** The table's cells, row by row, are the API's numbers. */
async function expectTable(page: Page, answer: SummaryAnswer) {
  const table = page.getByRole('table');
  const n = (x: number) => x.toLocaleString('en-US');
  const want = [
    ...answer.data.map((p) => [p.sessions, p.present, p.guests, p.firstTime, p.headcount, p.averagePresent].map(n)),
    [answer.totals.sessions, answer.totals.present, answer.totals.guests, answer.totals.firstTime, answer.totals.headcount].map(n).concat(''),
  ];
  await expect.poll(async () => (await table.locator('tbody tr, tfoot tr').all()).length).toBe(want.length);
  await expect.poll(() => table.locator('tbody tr, tfoot tr').evaluateAll((rows) => rows.map((r) => [...r.querySelectorAll('td')].map((c) => c.textContent ?? '')))).toEqual(want);
}

