import type { Page } from 'playwright-core';
import { expect, it } from 'vitest';
import { api } from '../helpers/app.js';
import { checkScreen, describeInBrowser, newPage, setupBrowser, signIn } from '../helpers/browser.js';
import { newPerson } from '../helpers/contacts.factories.js';
import { newTenant, newUser, PASSWORD, type TestTenant, type TestUser } from '../helpers/factories.js';
import { newPeoplePipeline } from '../helpers/tasks.factories.js';

const ctx = setupBrowser();
const day = (offset: number) => new Date(Date.now() + offset * 86_400_000).toISOString().slice(0, 10);

type Task = { id: number; title: string; status: string; contact: { id: number } | null; card: { id: number; stepId: number } | null };

/** A church with its seeded "New people" pipeline, a pastor (no Admin role) and two first-time guests on the board, assigned to the pastor. */
async function church() {
  const t = await newTenant(ctx);
  const pastor = await newUser(ctx, t, ['tasks:read', 'tasks:write', 'contacts:read', 'hierarchy:all', 'users:read'], { username: 'pastor', firstName: 'John', lastName: 'Mbeki' });
  const pipelineId = await newPeoplePipeline(ctx, t);
  const grace = await newPerson(ctx, t, 'Grace', 'Achieng');
  const peter = await newPerson(ctx, t, 'Peter', 'Mwangi');
  const card = async (contactId: number) => {
    const res = await api(ctx.app, t.admin.token).post(`/api/tasks/pipelines/${pipelineId}/cards`, { contactId, assigneeUserId: pastor.id });
    expect(res.statusCode).toBe(201);
    return res.json() as { id: number; task: { id: number } };
  };
  const graceCard = await card(grace.id);
  const peterCard = await card(peter.id);
  // Peter's welcome call is late: the column shows it.
  await api(ctx.app, t.admin.token).put(`/api/tasks/${peterCard.task.id}`, { dueDate: day(-3) });
  return { t, pastor, pipelineId, grace, peter, graceCard, peterCard };
}

const mine = async (user: TestUser): Promise<Task[]> => (await api(ctx.app, user.token).get('/api/tasks?assignee=me&limit=100')).json().data;
const cardOf = async (t: TestTenant, id: number) => (await api(ctx.app, t.admin.token).get(`/api/tasks/cards?limit=100`)).json().data.find((c: { id: number }) => c.id === id);

async function openBoard(page: Page) {
  await page.getByRole('navigation', { name: 'Areas' }).getByRole('link', { name: 'Follow-up' }).click();
  await page.getByRole('heading', { name: 'Follow-up boards' }).waitFor();
  await page.getByRole('link', { name: 'New people' }).click();
  await page.getByRole('heading', { name: 'New people' }).waitFor();
}

describeInBrowser('the console: follow-up', { timeout: 180_000 }, () => {
  it("a pastor drags a first-time guest's card to the next step with the mouse, and the next step's task is in My tasks", async () => {
    const { t, pastor, pipelineId, graceCard } = await church();
    const page = await newPage(ctx);
    await signIn(page, t.slug, 'pastor', PASSWORD);
    await page.getByRole('navigation', { name: 'Areas' }).getByRole('link', { name: 'Follow-up' }).click();
    await page.getByRole('heading', { name: 'Follow-up boards' }).waitFor();
    await page.getByText('Welcome call → Matched to a fellowship').waitFor();
    await checkScreen(page, 'followup-boards');
    await page.getByRole('link', { name: 'New people' }).click();
    await page.getByRole('heading', { name: 'New people' }).waitFor();
    const welcome = page.getByRole('region', { name: 'Welcome call' });
    const matched = page.getByRole('region', { name: 'Matched to a fellowship' });
    await welcome.getByRole('article', { name: 'Grace Achieng, Welcome call' }).waitFor();
    await welcome.getByText('1 overdue').waitFor();
    await welcome.getByText('2 people').waitFor();
    await checkScreen(page, 'followup-board');

    // Drag with the real mouse: down on the card, a few moves (the sensor starts after 6 px), up over the next column.
    const from = (await welcome.getByRole('article', { name: 'Grace Achieng, Welcome call' }).getByText('Assigned to pastor').boundingBox())!;
    const to = (await matched.boundingBox())!;
    const moved = page.waitForResponse((r) => r.url().endsWith(`/api/tasks/cards/${graceCard.id}/move`));
    await page.mouse.move(from.x + from.width / 2, from.y + from.height / 2);
    await page.mouse.down();
    await page.mouse.move(from.x + from.width / 2 + 10, from.y + from.height / 2 + 5, { steps: 3 });
    await page.mouse.move(to.x + to.width / 2, to.y + 40, { steps: 15 });
    await page.mouse.up();
    expect((await moved).status()).toBe(200);
    await matched.getByRole('article', { name: 'Grace Achieng, Matched to a fellowship' }).waitFor();
    await expect(welcome.getByRole('article', { name: /Grace Achieng/ }).count()).resolves.toBe(0);
    await matched.getByRole('link', { name: 'Grace Achieng' }).waitFor(); // the new step's task, from the server
    expect((await cardOf(t, graceCard.id)).step.name).toBe('Matched to a fellowship');

    // The next step's task is the pastor's: in the API and in My tasks; the welcome call is done.
    const tasks = await mine(pastor);
    const next = tasks.find((x) => x.title === 'Matched to a fellowship: Grace Achieng')!;
    expect(next).toMatchObject({ status: 'Open', card: { id: graceCard.id } });
    expect(tasks.find((x) => x.title === 'Welcome call: Grace Achieng')!.status).toBe('Done');
    await page.getByRole('navigation', { name: 'Follow-up' }).getByRole('link', { name: 'My tasks' }).click();
    await page.getByRole('heading', { name: 'My tasks' }).waitFor();
    const week = page.getByRole('region', { name: 'Due this week' }).or(page.getByRole('region', { name: 'Later' }));
    await week.getByRole('link', { name: 'Matched to a fellowship: Grace Achieng' }).waitFor();
    await page.getByRole('region', { name: 'Overdue' }).getByRole('link', { name: 'Welcome call: Peter Mwangi' }).waitFor();
    await page.getByRole('region', { name: 'Done' }).getByRole('link', { name: 'Welcome call: Grace Achieng' }).waitFor();
    await checkScreen(page, 'followup-my-tasks');

    // Done in one tap.
    await page.getByRole('button', { name: 'Mark “Welcome call: Peter Mwangi” done' }).click();
    await page.getByRole('region', { name: 'Done' }).getByRole('link', { name: 'Welcome call: Peter Mwangi' }).waitFor();
    expect((await mine(pastor)).find((x) => x.title === 'Welcome call: Peter Mwangi')!.status).toBe('Done');
    expect(pipelineId).toBeGreaterThan(0);
    await page.context().close();
  });

  it('a card moves from the keyboard alone, keeps the focus, and a refused move is put back with the reason', async () => {
    const { t, peterCard } = await church();
    const page = await newPage(ctx);
    await signIn(page, t.slug, 'pastor', PASSWORD);
    await openBoard(page);
    const name = 'Move Peter Mwangi on to Matched to a fellowship';
    await page.getByRole('button', { name }).waitFor();
    await page.locator('body').focus();
    for (let i = 0; i < 80 && (await page.evaluate(() => document.activeElement?.getAttribute('aria-label'))) !== name; i++) await page.keyboard.press('Tab');
    expect(await page.evaluate(() => document.activeElement?.getAttribute('aria-label'))).toBe(name);
    await page.keyboard.press('Enter');
    await page.getByRole('region', { name: 'Matched to a fellowship' }).getByRole('article', { name: 'Peter Mwangi, Matched to a fellowship' }).waitFor();
    await page.getByRole('status').filter({ hasText: 'Peter Mwangi moved to Matched to a fellowship.' }).waitFor({ state: 'attached' });
    // The focus follows the card, so Enter again moves it on.
    await expect.poll(() => page.evaluate(() => document.activeElement?.getAttribute('aria-label'))).toBe('Move Peter Mwangi on to Attended a fellowship');
    await page.keyboard.press('Enter');
    await page.getByRole('region', { name: 'Attended a fellowship' }).getByRole('article', { name: 'Peter Mwangi, Attended a fellowship' }).waitFor();
    await expect.poll(async () => (await cardOf(t, peterCard.id)).step.name).toBe('Attended a fellowship');
    await expect.poll(() => page.evaluate(() => document.activeElement?.getAttribute('aria-label'))).toBe('Move Peter Mwangi on to Joined a serving team');

    // The connection drops: the card is put back where it was, and the screen says why.
    const attended = page.getByRole('region', { name: 'Attended a fellowship' });
    await page.route('**/api/tasks/cards/*/move', (route) => route.abort('internetdisconnected'));
    await page.keyboard.press('Shift+Tab');
    await expect.poll(() => page.evaluate(() => document.activeElement?.getAttribute('aria-label'))).toBe('Move Peter Mwangi back to Matched to a fellowship');
    await page.keyboard.press('Enter');
    await page.getByRole('alert').filter({ hasText: 'The server cannot be reached' }).waitFor();
    await attended.getByRole('article', { name: 'Peter Mwangi, Attended a fellowship' }).waitFor();
    await expect.poll(() => page.evaluate(() => document.activeElement?.getAttribute('aria-label'))).toBe('Move Peter Mwangi back to Matched to a fellowship');
    await page.unroute('**/api/tasks/cards/*/move');

    // Someone else took the card off the board meanwhile: the API's refusal is shown, and the board catches up.
    expect((await api(ctx.app, t.admin.token).delete(`/api/tasks/cards/${peterCard.id}`)).statusCode).toBe(204);
    await page.keyboard.press('Enter');
    await page.getByRole('alert').filter({ hasText: `Card ${peterCard.id} is Removed; only an Active card moves` }).waitFor();
    await expect.poll(() => attended.getByRole('article', { name: /Peter Mwangi/ }).count()).toBe(0);
    await attended.getByText('No one at this step. Drag a card here.').waitFor();
    await checkScreen(page, 'followup-board-refused');
    await page.context().close();

    // Without tasks:write the board is for reading: no Back or Next, and nothing to drag.
    await newUser(ctx, t, ['tasks:read', 'contacts:read', 'hierarchy:all'], { username: 'reader' });
    const reader = await newPage(ctx);
    await signIn(reader, t.slug, 'reader', PASSWORD);
    await openBoard(reader);
    await reader.getByRole('article', { name: 'Grace Achieng, Welcome call' }).waitFor();
    await reader.getByText('moving cards needs the tasks:write permission').waitFor();
    await expect(reader.getByRole('button', { name: /^Move / }).count()).resolves.toBe(0);
    await reader.context().close();
  });

  it("a pastor creates a task from a person's page, finds it in My tasks and comments on it on the task's page", async () => {
    const { t, pastor, grace } = await church();
    const page = await newPage(ctx);
    await signIn(page, t.slug, 'pastor', PASSWORD);
    await page.goto(`/people/${grace.id}`);
    await page.getByRole('heading', { name: 'Grace Achieng' }).waitFor();
    const tasksSection = page.getByRole('region', { name: 'Tasks' });
    await tasksSection.getByText('Welcome call: Grace Achieng').waitFor();
    await tasksSection.getByRole('button', { name: 'New task' }).click();
    const dialog = page.getByRole('dialog', { name: 'New task' });
    await dialog.getByLabel('Title').fill('Visit Grace at home');
    await dialog.getByLabel('Due date').fill(day(2));
    await dialog.getByLabel('Assigned to').selectOption({ label: 'pastor (me)' });
    await dialog.getByLabel('Priority').selectOption('High');
    await checkScreen(page, 'followup-new-task');
    await dialog.getByRole('button', { name: 'Create task' }).click();
    await tasksSection.getByText(/^Visit Grace at home/).waitFor();
    const created = (await mine(pastor)).find((x) => x.title === 'Visit Grace at home')!;
    expect(created).toMatchObject({ status: 'Open', contact: { id: grace.id }, priority: 'High', dueDate: day(2) });

    await page.getByRole('navigation', { name: 'Areas' }).getByRole('link', { name: 'Follow-up' }).click();
    await page.getByRole('link', { name: 'My tasks' }).click();
    await page.getByRole('link', { name: 'Visit Grace at home' }).click();
    await page.getByRole('heading', { name: 'Visit Grace at home' }).waitFor();
    await page.getByRole('link', { name: 'Grace Achieng' }).waitFor();
    await page.getByText('No comments yet.', { exact: false }).waitFor();
    await checkScreen(page, 'followup-task');
    await page.getByLabel('Add a comment').fill('Called; visiting on Saturday with Mary.');
    await page.getByRole('button', { name: 'Add comment' }).click();
    await page.getByRole('region', { name: 'Comments' }).getByText('Called; visiting on Saturday with Mary.').waitFor();
    await expect.poll(() => page.getByLabel('Add a comment').inputValue()).toBe('');
    const detail = (await api(ctx.app, pastor.token).get(`/api/tasks/${created.id}`)).json();
    expect(detail.comments).toMatchObject([{ body: 'Called; visiting on Saturday with Mary.', author: { username: 'pastor' } }]);
    await page.getByRole('button', { name: 'Mark done' }).click();
    await page.getByRole('button', { name: 'Reopen' }).waitFor();
    const history = page.getByRole('region', { name: 'History' });
    await history.getByText(/pastor changed the status: Open → Done/).waitFor();
    await history.getByText(/pastor created the task/).waitFor();
    expect((await api(ctx.app, pastor.token).get(`/api/tasks/${created.id}`)).json().status).toBe('Done');
    await checkScreen(page, 'followup-task-done');
    await page.getByRole('link', { name: 'Grace Achieng' }).click();
    await page.getByRole('heading', { name: 'Grace Achieng' }).waitFor();
    await page.context().close();
  });
});
