import fs from 'node:fs';
import type { Page } from 'playwright-core';
import { expect, it } from 'vitest';
import { api } from '../helpers/app.js';
import { describeInBrowser, newPage, screen, setupBrowser, signIn } from '../helpers/browser.js';
import { newPerson } from '../helpers/contacts.factories.js';
import { newTenant, newUser, PASSWORD } from '../helpers/factories.js';
import { newFamily, newHousehold } from '../helpers/households.factories.js';

const ctx = setupBrowser();

/** Picks a person in a person search field (Mantine Select): types, then clicks the matching option. */
async function pick(page: Page, label: string, typed: string, option: string | RegExp) {
  await page.getByRole('combobox', { name: label }).fill(typed);
  await page.getByRole('option', { name: option }).click();
}

/** Chooses a value of a (non-searchable) Mantine Select by its accessible name. */
async function choose(page: Page, label: string, value: string) {
  await page.getByRole('combobox', { name: label, exact: true }).click();
  await page.getByRole('option', { name: value, exact: true }).click();
}

describeInBrowser('the console: households, duplicates, export and erase', { timeout: 240_000 }, () => {
  it('an admin creates a household from two people, sees it on both person pages, changes a role, fixes the address, removes a member, and meets the API refusal for someone already in a family', async () => {
    const t = await newTenant(ctx);
    const peter = await newPerson(ctx, t, 'Peter', 'Mwangi');
    const grace = await newPerson(ctx, t, 'Grace', 'Mwangi');
    const joy = await newPerson(ctx, t, 'Joy', 'Mwangi');
    const other = await newFamily(ctx, t, 'Otieno', ['Head']);
    const page = await newPage(ctx);
    await signIn(page, t.slug, 'admin', PASSWORD);

    await page.getByRole('navigation', { name: 'Areas' }).getByRole('link', { name: 'Households' }).click();
    await page.getByRole('heading', { name: 'Households' }).waitFor();
    await page.getByLabel('Search households').fill('Mwangi');
    await page.getByText('No household matches “Mwangi”.').waitFor();
    await screen(page, 'households-empty');

    // Peter's page offers a household; starting a new one begins with him.
    await page.goto(`/people/${peter.id}`);
    const householdSection = page.getByRole('region', { name: 'Household' });
    await householdSection.getByText('Not in a household.').waitFor();
    await householdSection.getByRole('link', { name: 'Start a new household' }).click();
    await page.getByRole('heading', { name: 'New household' }).waitFor();
    await page.getByRole('region', { name: 'People' }).getByText('Peter Mwangi').waitFor();
    await pick(page, 'Add a person', 'Grace', 'Grace Mwangi');
    await page.getByRole('region', { name: 'People' }).getByText('Grace Mwangi').waitFor();
    await expect(page.getByRole('combobox', { name: 'Role of Peter Mwangi' }).inputValue()).resolves.toBe('Head');
    await expect(page.getByRole('combobox', { name: 'Role of Grace Mwangi' }).inputValue()).resolves.toBe('Spouse');
    await page.getByLabel('City').fill('Nairobi');
    await page.getByRole('switch', { name: /Give together/ }).check();
    await screen(page, 'household-new');
    await page.getByRole('button', { name: 'Create household' }).click();
    await page.getByRole('heading', { name: 'Mwangi household' }).waitFor();
    const members = page.getByRole('region', { name: 'Members' });
    await members.getByRole('link', { name: 'Peter Mwangi' }).waitFor();
    await members.getByRole('link', { name: 'Grace Mwangi' }).waitFor();
    await page.getByRole('region', { name: 'Details' }).getByText('Together').waitFor();
    await screen(page, 'household');

    // Seen on both person pages, as a link back.
    for (const [person, role] of [['Peter Mwangi', 'Head'], ['Grace Mwangi', 'Spouse']] as const) {
      await members.getByRole('link', { name: person }).click();
      await page.getByRole('heading', { name: person }).waitFor();
      await householdSection.getByText(`· ${role}`).waitFor();
      if (person === 'Grace Mwangi') await screen(page, 'person-with-household');
      await householdSection.getByRole('link', { name: 'Mwangi household' }).click();
      await page.getByRole('heading', { name: 'Mwangi household' }).waitFor();
    }

    // Change a role.
    await choose(page, 'Role of Grace Mwangi', 'Other');
    await page.getByText('Grace Mwangi is now Other').waitFor();
    const householdId = Number(/\/households\/(\d+)/.exec(page.url())![1]);
    const stored = async () => (await api(ctx.app, t.admin.token).get(`/api/crm/households/${householdId}`)).json();
    await expect.poll(async () => (await stored()).members.map((m: { role: string }) => m.role)).toEqual(['Head', 'Other']);

    // Someone already in a family: the API's message where the admin can act on it.
    await pick(page, 'Add a person', 'Otieno', /Head0 Otieno \(in a household\)/);
    await page.getByRole('button', { name: 'Add', exact: true }).click();
    await page.getByRole('alert').getByText(`Contact ${other.people[0].id} already belongs to household ${other.household.id}`).waitFor();
    await expect(page.getByRole('link', { name: 'Open their household' }).getAttribute('href')).resolves.toBe(`/households/${other.household.id}`);
    await screen(page, 'household-add-refused');
    await page.getByRole('button', { name: 'Cancel' }).click();
    await pick(page, 'Add a person', 'Joy', 'Joy Mwangi');
    await page.getByRole('button', { name: 'Add', exact: true }).click();
    await members.getByRole('link', { name: 'Joy Mwangi' }).waitFor();
    await expect(page.getByRole('combobox', { name: 'Role of Joy Mwangi' }).inputValue()).resolves.toBe('Child');

    // Edit the address and giving together.
    await page.getByRole('button', { name: 'Edit details' }).click();
    const dialog = page.getByRole('dialog', { name: 'Edit Mwangi household' });
    await dialog.getByLabel('Street').fill('12 Riverside Drive');
    await dialog.getByRole('switch', { name: /Give together/ }).uncheck();
    await screen(page, 'household-edit');
    await dialog.getByRole('button', { name: 'Save' }).click();
    await page.getByRole('region', { name: 'Details' }).getByText('12 Riverside Drive, Nairobi').waitFor();
    await page.getByRole('region', { name: 'Details' }).getByText('Each person', { exact: true }).waitFor();
    expect(await stored()).toMatchObject({ address: { street: '12 Riverside Drive', city: 'Nairobi' }, givingTogether: false });

    // Remove a member (behind a confirmation); they stay in People without a household.
    await members.getByRole('button', { name: 'Remove Joy Mwangi' }).click();
    const confirm = page.getByRole('dialog', { name: 'Remove Joy Mwangi?' });
    await confirm.getByText('They stay in People').waitFor();
    await confirm.getByRole('button', { name: 'Remove' }).click();
    await page.getByText('Joy Mwangi removed from Mwangi household').waitFor();
    await expect(members.getByRole('link', { name: 'Joy Mwangi' }).count()).resolves.toBe(0);
    expect((await stored()).members.map((m: { contact: { id: number } }) => m.contact.id)).toEqual([peter.id, grace.id]);
    const joyNow = await api(ctx.app, t.admin.token).get(`/api/crm/contacts/${joy.id}`);
    expect(joyNow.json().household).toBeNull();

    // The list finds the family by a member's name.
    await page.getByRole('link', { name: 'Households' }).first().click();
    await page.getByLabel('Search households').fill('grace');
    await page.getByText('1 household', { exact: true }).waitFor();
    await page.getByRole('table').getByRole('link', { name: 'Mwangi household' }).waitFor();
    await screen(page, 'households-list');

    // Joy joins an existing household from her page.
    await page.goto(`/people/${joy.id}`);
    await householdSection.getByRole('button', { name: 'Add to a household' }).click();
    await pick(page, 'Household', 'Mwangi', 'Mwangi household');
    await choose(page, 'As', 'Child');
    await screen(page, 'person-join-household');
    await householdSection.getByRole('button', { name: 'Add', exact: true }).click();
    await householdSection.getByRole('link', { name: 'Mwangi household' }).waitFor();
    expect((await stored()).members.at(-1)).toMatchObject({ contact: { id: joy.id }, role: 'Child' });
    await page.context().close();
  });

  it('a user who may only read contacts sees households and people without any edit, export or erase action', async () => {
    const t = await newTenant(ctx);
    const { household, people } = await newFamily(ctx, t, 'Achieng', ['Head', 'Child']);
    const loner = await newPerson(ctx, t, 'Samuel', 'Okello');
    const reader = await newUser(ctx, t, ['contacts:read'], { username: 'reader' });
    const page = await newPage(ctx);
    await signIn(page, t.slug, reader.username, PASSWORD);

    const nav = page.getByRole('navigation', { name: 'Areas' });
    await expect(nav.getByRole('link').allTextContents()).resolves.toEqual(['Home', 'People', 'Households', 'Messages']);
    await nav.getByRole('link', { name: 'Households' }).click();
    await page.getByRole('link', { name: household.name }).waitFor();
    await expect(page.getByRole('link', { name: 'New household' }).count()).resolves.toBe(0);
    await page.getByRole('link', { name: household.name }).click();
    await page.getByRole('heading', { name: household.name }).waitFor();
    await page.getByRole('region', { name: 'Members' }).getByRole('link', { name: `Child1 Achieng` }).waitFor();
    for (const action of ['Edit details', 'Delete household', 'Remove Head0 Achieng']) await expect(page.getByRole('button', { name: action }).count()).resolves.toBe(0);
    await expect(page.getByRole('combobox', { name: 'Add a person' }).count()).resolves.toBe(0);
    await expect(page.getByRole('combobox', { name: 'Role of Head0 Achieng' }).count()).resolves.toBe(0);
    await page.getByRole('region', { name: 'Members' }).getByRole('cell', { name: 'Head', exact: true }).waitFor();
    await screen(page, 'household-read-only');

    await page.goto(`/people/${people[0].id}`);
    await page.getByRole('region', { name: 'Household' }).getByRole('link', { name: household.name }).waitFor();
    await page.goto(`/people/${loner.id}`);
    await page.getByRole('region', { name: 'Household' }).getByText('Not in a household.').waitFor();
    for (const action of ['Add to a household', 'Export', 'Erase']) await expect(page.getByRole('button', { name: action }).count()).resolves.toBe(0);
    await expect(page.getByRole('link', { name: 'Edit' }).count()).resolves.toBe(0);
    await expect(page.getByRole('link', { name: 'Start a new household' }).count()).resolves.toBe(0);
    await page.goto('/households/new');
    await page.getByRole('heading', { name: 'Not available to you' }).waitFor();
    await page.goto('/people/duplicates');
    await page.getByText(/No likely duplicates|pairs? that may be the same person/).waitFor();
    await expect(page.getByRole('button', { name: /^Merge/ }).count()).resolves.toBe(0);
    await page.context().close();
  });

  it('an admin exports a person, then erases them only after a confirmation that says what happens; their family keeps the others', async () => {
    const t = await newTenant(ctx);
    const ruth = await newPerson(ctx, t, 'Ruth', 'Nakato', { emails: [{ value: 'ruth@example.org' }], phones: [{ value: '+256 772 418 903' }] });
    const david = await newPerson(ctx, t, 'David', 'Nakato');
    const family = await newHousehold(ctx, t, { members: [{ contactId: david.id, role: 'Head' }, { contactId: ruth.id, role: 'Spouse' }] });
    const page = await newPage(ctx);
    await signIn(page, t.slug, 'admin', PASSWORD);
    await page.goto(`/people/${ruth.id}`);
    await page.getByRole('heading', { name: 'Ruth Nakato' }).waitFor();

    await page.getByRole('button', { name: 'Export' }).click();
    const exportDialog = page.getByRole('dialog', { name: 'Export everything about Ruth Nakato?' });
    await exportDialog.getByText('Nothing is changed.', { exact: false }).waitFor();
    await screen(page, 'person-export-dialog');
    const [download] = await Promise.all([page.waitForEvent('download'), exportDialog.getByRole('button', { name: 'Download the file' }).click()]);
    expect(download.suggestedFilename()).toBe(`contact-${ruth.id}.json`);
    const exported = JSON.parse(fs.readFileSync((await download.path())!, 'utf8'));
    expect(exported.contact).toMatchObject({ id: ruth.id, person: { firstName: 'Ruth', lastName: 'Nakato' } });
    await exportDialog.waitFor({ state: 'detached' });

    await page.getByRole('button', { name: 'Erase' }).click();
    const dialog = page.getByRole('dialog', { name: 'Erase Ruth Nakato?' });
    await dialog.getByText('This cannot be undone.').waitFor();
    await dialog.getByText(/stay only as counts and totals/).waitFor();
    const eraseButton = dialog.getByRole('button', { name: 'Erase Ruth Nakato' });
    await expect(eraseButton.isDisabled()).resolves.toBe(true);
    await screen(page, 'person-erase-dialog');
    // Cancel changes nothing.
    await dialog.getByRole('button', { name: 'Cancel' }).click();
    await dialog.waitFor({ state: 'detached' });
    expect((await api(ctx.app, t.admin.token).get(`/api/crm/contacts/${ruth.id}`)).json().person.firstName).toBe('Ruth');

    await page.getByRole('button', { name: 'Erase' }).click();
    await dialog.getByRole('checkbox', { name: /I understand/ }).check();
    await eraseButton.click();
    await page.getByRole('heading', { name: 'People' }).waitFor();
    await page.getByText('Ruth Nakato erased').waitFor();
    const erased = (await api(ctx.app, t.admin.token).get(`/api/crm/contacts/${ruth.id}`)).json();
    expect(erased).toMatchObject({ person: { firstName: 'Erased' }, emails: [], phones: [], household: null });
    const stayed = (await api(ctx.app, t.admin.token).get(`/api/crm/households/${family.id}`)).json();
    expect(stayed.members.map((m: { contact: { id: number } }) => m.contact.id)).toEqual([david.id]);

    // The admin's own contact: the API's refusal shows in the dialog.
    await page.goto(`/people/${t.admin.contactId}`);
    await page.getByRole('button', { name: 'Erase' }).click();
    const own = page.getByRole('dialog', { name: /^Erase / });
    await own.getByRole('checkbox', { name: /I understand/ }).check();
    await own.getByRole('button', { name: /^Erase / }).click();
    await own.getByRole('alert').getByText('You cannot erase your own contact').waitFor();
    await page.context().close();
  });

  it('an admin reviews possible duplicates and merges a pair, choosing which record to keep', async () => {
    const t = await newTenant(ctx);
    const first = await newPerson(ctx, t, 'Esther', 'Wanjiru', { emails: [{ value: 'esther@example.org' }] });
    const second = await newPerson(ctx, t, 'Esther', 'Wanjiru', { emails: [{ value: 'ESTHER@example.org' }], phones: [{ value: '+254 700 123 456' }] });
    const page = await newPage(ctx);
    await signIn(page, t.slug, 'admin', PASSWORD);
    await page.getByRole('navigation', { name: 'Areas' }).getByRole('link', { name: 'People' }).click();
    await page.getByRole('link', { name: 'Possible duplicates' }).click();
    await page.getByText('1 pair that may be the same person').waitFor();
    const pair = page.getByRole('region', { name: 'Esther Wanjiru and Esther Wanjiru' });
    await pair.getByText('Same email').waitFor();
    await pair.getByText('Same name').waitFor();
    await screen(page, 'duplicates');

    await pair.getByRole('button', { name: 'Merge Esther Wanjiru and Esther Wanjiru' }).click();
    const dialog = page.getByRole('dialog', { name: 'Merge Esther Wanjiru and Esther Wanjiru?' });
    await dialog.getByRole('radio', { name: `Esther Wanjiru (#${second.id})` }).check();
    await dialog.getByText(`Then #${first.id} is deleted. This cannot be undone.`, { exact: false }).waitFor();
    await screen(page, 'duplicates-merge-dialog');
    await dialog.getByRole('button', { name: 'Keep Esther Wanjiru and merge' }).click();
    await page.getByText('No likely duplicates', { exact: false }).waitFor();
    await screen(page, 'duplicates-none');
    expect((await api(ctx.app, t.admin.token).get(`/api/crm/contacts/${first.id}`)).statusCode).toBe(404);
    const kept = (await api(ctx.app, t.admin.token).get(`/api/crm/contacts/${second.id}`)).json();
    expect(kept.phones.map((p: { value: string }) => p.value)).toEqual(['+254 700 123 456']);
    await page.context().close();
  });
});
