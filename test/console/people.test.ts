import type { Page } from 'playwright-core';
import { expect, it } from 'vitest';
import { api } from '../helpers/app.js';
import { checkScreen, describeInBrowser, newPage, screen, setupBrowser, signIn } from '../helpers/browser.js';
import { newPerson } from '../helpers/contacts.factories.js';
import { newTenant, newUser, PASSWORD } from '../helpers/factories.js';
import { addMembership, newGroup } from '../helpers/groups.factories.js';
import { newHousehold } from '../helpers/households.factories.js';
import { newTask } from '../helpers/tasks.factories.js';

const ctx = setupBrowser();

/** Chooses a value of a Mantine Select by its accessible name. */
async function choose(page: Page, label: string, value: string, typed?: string) {
  const box = page.getByRole('combobox', { name: label, exact: true });
  if (typed) await box.fill(typed); else await box.click();
  await page.getByRole('option', { name: value, exact: true }).click();
}

describeInBrowser('the console: search, filters, saved lists and merging', { timeout: 240_000 }, () => {
  it('the header search finds people, families, groups and tasks from anywhere, opened with the keyboard; a member searches only groups', async () => {
    const t = await newTenant(ctx);
    const ruth = await newPerson(ctx, t, 'Ruth', 'Nakato', { emails: [{ value: 'ruth@example.org' }] });
    const household = await newHousehold(ctx, t, { name: 'Nakato family', members: [{ contactId: ruth.id, role: 'Head' }] });
    const group = await newGroup(ctx, t, { name: 'Nakato Cell', category: 'Fellowship' });
    const task = await newTask(ctx, t.admin, { title: 'Visit the Nakato family', contactId: ruth.id });
    const page = await newPage(ctx);
    await signIn(page, t.slug, 'admin', PASSWORD);

    await page.keyboard.press('Control+k');
    const search = page.getByRole('combobox', { name: 'Search all people, families, groups and tasks' });
    await expect.poll(() => search.evaluate((el) => el === document.activeElement)).toBe(true);
    await page.keyboard.type('nakato');
    const results = page.getByRole('listbox', { name: 'Search results' });
    await results.getByRole('option', { name: /Ruth Nakato/ }).waitFor();
    await results.getByRole('option', { name: /Nakato family/ }).first().waitFor();
    await results.getByRole('option', { name: /Nakato Cell/ }).waitFor();
    await results.getByRole('option', { name: /Visit the Nakato family/ }).waitFor();
    for (const label of ['People', 'Families', 'Groups', 'Tasks']) await results.getByText(label, { exact: true }).waitFor();
    await checkScreen(page, 'search-results');
    // The first result is chosen: Enter opens the person.
    await page.keyboard.press('Enter');
    await page.getByRole('heading', { name: 'Ruth Nakato' }).waitFor();
    expect(new URL(page.url()).pathname).toBe(`/people/${ruth.id}`);

    // `/` focuses it from any page; the arrow keys walk down to the family.
    await page.evaluate(() => (document.activeElement as HTMLElement | null)?.blur());
    await page.keyboard.press('/');
    await page.keyboard.type('nakato');
    await results.getByRole('option', { name: /Nakato family/ }).first().waitFor();
    await page.keyboard.press('ArrowDown');
    await page.keyboard.press('Enter');
    await page.waitForURL(`**/households/${household.id}`);
    await page.getByRole('heading', { name: 'Nakato family' }).waitFor();

    await search.fill('Nakato Cell');
    await results.getByRole('option', { name: /Nakato Cell/ }).click();
    await page.waitForURL(`**/groups/${group.id}`);
    await search.fill('Visit the');
    await results.getByRole('option', { name: /Visit the Nakato family/ }).click();
    await page.waitForURL(`**/follow-up/tasks/${task.id}`);

    await search.fill('zzzz');
    await page.getByRole('status').getByText('Nothing matches “zzzz”').waitFor();
    await checkScreen(page, 'search-nothing');
    await page.context().close();

    // A plain member reads groups only: the search says so and finds no people.
    const member = await newUser(ctx, t, 'Member');
    await addMembership(ctx, t, group, member.contactId);
    const other = await newPage(ctx);
    await signIn(other, t.slug, member.username, PASSWORD);
    const groupsOnly = other.getByRole('combobox', { name: 'Search all groups' });
    await groupsOnly.fill('nakato');
    await other.getByRole('listbox', { name: 'Search results' }).getByRole('option', { name: /Nakato Cell/ }).waitFor();
    await expect(other.getByRole('option', { name: /Ruth Nakato/ }).count()).resolves.toBe(0);
    await other.context().close();
  });

  it('an admin filters people by status, group and city, saves the filter as a list, opens it again from the saved lists and deletes it', async () => {
    const t = await newTenant(ctx);
    const fellowship = await newGroup(ctx, t, { name: 'Kisaasi Fellowship', category: 'Fellowship' });
    const inKampala = { addresses: [{ city: 'Kampala', country: 'UG' }] };
    const amos = await newPerson(ctx, t, 'Amos', 'Kato', inKampala);
    const bella = await newPerson(ctx, t, 'Bella', 'Kato', { addresses: [{ city: 'Entebbe', country: 'UG' }] });
    const cyrus = await newPerson(ctx, t, 'Cyrus', 'Kato', { ...inKampala, status: 'Inactive' });
    await newPerson(ctx, t, 'Dora', 'Kato', inKampala);
    for (const p of [amos, bella, cyrus]) await addMembership(ctx, t, fellowship, p.id);

    const page = await newPage(ctx);
    await signIn(page, t.slug, 'admin', PASSWORD);
    await page.goto('/people');
    await page.getByText('5 people', { exact: true }).waitFor();
    await page.getByRole('combobox', { name: 'Saved lists' }).waitFor();
    await page.getByRole('button', { name: 'Filters' }).click();
    await choose(page, 'Status', 'Active');
    await page.getByText('4 people', { exact: true }).waitFor();
    await choose(page, 'Member of', 'Kisaasi Fellowship', 'Kisaasi');
    await page.getByText('2 people', { exact: true }).waitFor();
    await page.getByLabel('City').fill('kampala');
    await page.getByText('1 person', { exact: true }).waitFor();
    await page.getByRole('link', { name: 'Amos Kato' }).waitFor();
    await screen(page, 'people-filtered');

    await page.getByRole('button', { name: 'Save as a list…' }).click();
    const dialog = page.getByRole('dialog', { name: 'Save as a list' });
    await dialog.getByLabel('Name').fill('Kisaasi in Kampala');
    await dialog.getByRole('switch', { name: /Share with everyone/ }).check();
    await screen(page, 'people-save-list');
    await dialog.getByRole('button', { name: 'Save the list' }).click();
    await page.getByRole('heading', { name: 'Kisaasi in Kampala' }).waitFor();
    await page.getByText('1 person', { exact: true }).waitFor();
    await page.getByRole('link', { name: 'Amos Kato' }).waitFor();
    await page.getByText(/Shared list · updated as people change/).waitFor();
    await screen(page, 'people-saved-list');
    const saved = (await api(ctx.app, t.admin.token).get('/api/search/lists')).json().data;
    expect(saved).toMatchObject([{ name: 'Kisaasi in Kampala', shared: true, count: 1 }]);

    // The list is the filter, not today's names: Dora joins the fellowship and is on it.
    const dora = (await api(ctx.app, t.admin.token).get('/api/crm/contacts?q=Dora')).json().data[0];
    await addMembership(ctx, t, fellowship, dora.id);
    await page.getByRole('button', { name: 'Back to everyone' }).click();
    await page.getByRole('heading', { name: 'People' }).waitFor();
    await choose(page, 'Saved lists', 'Kisaasi in Kampala (2) · shared');
    await page.getByRole('heading', { name: 'Kisaasi in Kampala' }).waitFor();
    await page.getByText('2 people', { exact: true }).waitFor();
    await page.getByRole('link', { name: 'Dora Kato' }).waitFor();

    await page.getByRole('button', { name: 'Delete the list…' }).click();
    await page.getByRole('dialog').getByText('the people on it stay as they are').waitFor();
    await page.getByRole('dialog').getByRole('button', { name: 'Delete the list' }).click();
    await page.getByRole('heading', { name: 'People' }).waitFor();
    await expect.poll(async () => (await api(ctx.app, t.admin.token).get('/api/search/lists')).json().total).toBe(0);
    await page.getByRole('combobox', { name: 'Saved lists' }).click();
    await expect(page.getByRole('option').count()).resolves.toBe(0);
    await page.keyboard.press('Escape');
    await screen(page, 'people-no-lists');
    await page.context().close();
  });

  it('an admin merges three records of one person into the one they choose, after a confirmation naming each', async () => {
    const t = await newTenant(ctx);
    const same = { emails: [{ value: 'joseph@example.org' }] };
    const a = await newPerson(ctx, t, 'Joseph', 'Ssali', same);
    const b = await newPerson(ctx, t, 'Joseph', 'Ssali', { phones: [{ value: '+256 700 111 222' }] });
    const c = await newPerson(ctx, t, 'Joe', 'Ssali', { ...same, phones: [{ value: '+256 700 111 222' }] });
    const extra = await newPerson(ctx, t, 'J.', 'Ssali-Mukasa');
    const group = await newGroup(ctx, t, { name: 'Choir', category: 'Fellowship' });
    await addMembership(ctx, t, group, c.id);

    const page = await newPage(ctx);
    await signIn(page, t.slug, 'admin', PASSWORD);
    await page.goto('/people/duplicates');
    const cluster = page.getByRole('region', { name: 'Joseph Ssali, Joseph Ssali and Joe Ssali' });
    await cluster.getByText('3 records').waitFor();
    await screen(page, 'duplicates-cluster');
    await cluster.getByRole('button', { name: /^Merge / }).click();
    const dialog = page.getByRole('dialog', { name: 'Merge records?' });
    await dialog.getByRole('radio', { name: `Joseph Ssali (#${b.id})` }).check();
    await expect(dialog.getByRole('checkbox', { name: `Joseph Ssali (#${a.id})` }).isChecked()).resolves.toBe(true);
    await expect(dialog.getByRole('checkbox', { name: `Joe Ssali (#${c.id})` }).isChecked()).resolves.toBe(true);
    await expect(dialog.getByRole('checkbox', { name: `Joseph Ssali (#${b.id})` }).count()).resolves.toBe(0);
    // A fourth record found by searching.
    await dialog.getByRole('combobox', { name: 'Add another record' }).fill('Mukasa');
    await page.getByRole('option', { name: `J. Ssali-Mukasa (#${extra.id})` }).click();
    await dialog.getByRole('checkbox', { name: `J. Ssali-Mukasa (#${extra.id})` }).waitFor();
    await dialog.getByText(`Everything about Joseph Ssali (#${a.id}), Joe Ssali (#${c.id}) and J. Ssali-Mukasa (#${extra.id})`, { exact: false }).waitFor();
    await dialog.getByText(`#${a.id}, #${c.id}, #${extra.id} are deleted. This cannot be undone.`, { exact: false }).waitFor();
    await screen(page, 'duplicates-merge-several');
    await dialog.getByRole('checkbox', { name: `J. Ssali-Mukasa (#${extra.id})` }).uncheck();
    await dialog.getByRole('button', { name: 'Merge 2 into Joseph Ssali' }).click();
    await page.getByText(`Joseph Ssali, Joe Ssali merged into Joseph Ssali`).waitFor();
    await page.getByText(/No likely duplicates/).waitFor();

    const kept = (await api(ctx.app, t.admin.token).get(`/api/crm/contacts/${b.id}`)).json();
    expect(kept.emails.map((e: { value: string }) => e.value)).toEqual(['joseph@example.org']);
    expect(kept.groupMemberships.map((m: { group: { name: string } }) => m.group.name)).toEqual(['Choir']);
    for (const gone of [a, c]) expect((await api(ctx.app, t.admin.token).get(`/api/crm/contacts/${gone.id}`)).statusCode).toBe(404);
    expect((await api(ctx.app, t.admin.token).get(`/api/crm/contacts/${extra.id}`)).statusCode).toBe(200);
    await page.context().close();
  });

  it('Home lists this week\'s birthdays, each a link to the person, and opens the filtered list of first-time guests', async () => {
    const t = await newTenant(ctx);
    const soon = new Date(Date.now() + 2 * 86_400_000);
    const dateOfBirth = `${soon.getUTCFullYear() - 30}-${String(soon.getUTCMonth() + 1).padStart(2, '0')}-${String(soon.getUTCDate()).padStart(2, '0')}`;
    const esther = await newPerson(ctx, t, 'Esther', 'Namubiru', { person: { firstName: 'Esther', lastName: 'Namubiru', dateOfBirth } });
    const page = await newPage(ctx);
    await signIn(page, t.slug, 'admin', PASSWORD);
    const birthdays = page.getByRole('region', { name: 'Birthdays this week' });
    await birthdays.getByRole('link', { name: 'Esther Namubiru' }).waitFor();
    await screen(page, 'home-birthdays');
    await page.getByRole('link', { name: 'First-time guests' }).click();
    await page.getByRole('heading', { name: 'People' }).waitFor();
    await expect(page.getByRole('combobox', { name: 'First visit', exact: true }).inputValue()).resolves.toBe('In the last 30 days');
    await page.getByText('Nobody matches with these filters.').waitFor();
    await page.goto('/');
    await birthdays.getByRole('link', { name: 'Esther Namubiru' }).click();
    await page.waitForURL(`**/people/${esther.id}`);
    await page.context().close();
  });
});
