import type { Page } from 'playwright-core';
import { expect, it } from 'vitest';
import { api } from '../helpers/app.js';
import { checkScreen, describeInBrowser, newPage, setupBrowser, signIn } from '../helpers/browser.js';
import { newPerson } from '../helpers/contacts.factories.js';
import { newTenant, newUser, PASSWORD } from '../helpers/factories.js';
import { newFund, pdfText } from '../helpers/finance.factories.js';
import { newHousehold } from '../helpers/households.factories.js';

const ctx = setupBrowser();
const lastYear = new Date().getFullYear() - 1;
const BATCH_DATE = `${lastYear}-12-24`;

/** What has the keyboard focus: its accessible label, text or value. */
const focused = (page: Page) => page.evaluate(() => {
  const el = document.activeElement as HTMLElement | null;
  if (!el) return '';
  const labelled = el.getAttribute('aria-label') ?? (el.id ? document.querySelector(`label[for="${el.id}"]`)?.textContent : null);
  return `${labelled ?? ''}|${el.textContent ?? ''}`.trim();
});

/** Presses Tab (or Shift+Tab) until the focused element's label or text matches; keyboard only. */
async function tabTo(page: Page, target: RegExp, back = false) {
  for (let i = 0; i < 80; i++) {
    if (target.test(await focused(page))) return;
    await page.keyboard.press(back ? 'Shift+Tab' : 'Tab');
  }
  throw new Error(`Tab never reached ${target}`);
}

/** In the focused donor field: types, waits for the option, ArrowDown until it is the highlighted one, Enter. */
async function pickDonor(page: Page, typed: string, option: string) {
  await page.keyboard.type(typed);
  const wanted = page.getByRole('option', { name: new RegExp(`^${option.replace(/[()]/g, '\\$&')}`) });
  await wanted.first().waitFor();
  // Mantine marks the option the arrows reached with data-combobox-selected.
  for (let i = 0; i < 6 && (await wanted.first().getAttribute('data-combobox-selected')) !== 'true'; i++) await page.keyboard.press('ArrowDown');
  await page.keyboard.press('Enter');
  await expect.poll(() => page.getByRole('combobox', { name: 'Donor' }).inputValue()).toBe(option);
}

interface Entry {
  typed: string;
  donor: string;
  amount: string;
  fund?: string;
  split?: { fund: string; amount: string };
}

describeInBrowser('the console: giving', { timeout: 300_000 }, () => {
  it('a treasurer enters a batch of 20 gifts from the keyboard, sees the variance, fixes a typo, closes the batch and opens a household statement PDF', async () => {
    const t = await newTenant(ctx);
    await newFund(ctx, t.admin.token, { name: 'General' });
    await newFund(ctx, t.admin.token, { name: 'Building', isTaxDeductible: false });
    const grace = await newPerson(ctx, t, 'Grace', 'Okello', { phones: [{ value: '+256 772 418 903', isPrimary: true }] });
    for (const [first, last] of [['Amani', 'Wanjiru'], ['Baraka', 'Mwangi'], ['Chloe', 'Achieng'], ['Daniel', 'Otieno'], ['Esther', 'Nakato'], ['Felix', 'Mugisha'], ['Hope', 'Atim'], ['Isaac', 'Lubega']]) {
      await newPerson(ctx, t, first, last);
    }
    const peter = await newPerson(ctx, t, 'Peter', 'Kato');
    const ruth = await newPerson(ctx, t, 'Ruth', 'Kato');
    const kato = await newHousehold(ctx, t, { name: 'Kato household', givingTogether: true, members: [{ contactId: peter.id, role: 'Head' }, { contactId: ruth.id, role: 'Spouse' }] });
    const treasurer = await newUser(ctx, t, 'Treasurer', { username: 'treasurer' });

    // Twenty gifts as the envelopes say; the seventh will be typed 250 instead of 25.
    const entries: Entry[] = [
      { typed: '772 418', donor: 'Grace Okello', amount: '50', fund: 'Build' },
      { typed: 'Wanjiru', donor: 'Amani Wanjiru', amount: '20' },
      { typed: 'Kato household', donor: 'Kato household (Peter Kato)', amount: '100' },
      { typed: 'Mwangi', donor: 'Baraka Mwangi', amount: '15.50' },
      { typed: 'Achieng', donor: 'Chloe Achieng', amount: '40', fund: 'Gen' },
      { typed: 'Otieno', donor: 'Daniel Otieno', amount: '10' },
      { typed: 'Nakato', donor: 'Esther Nakato', amount: '250' },
      { typed: 'Mugisha', donor: 'Felix Mugisha', amount: '30' },
      { typed: 'Atim', donor: 'Hope Atim', amount: '12.25' },
      { typed: 'Lubega', donor: 'Isaac Lubega', amount: '60' },
      { typed: 'Ruth Kato', donor: 'Ruth Kato', amount: '35' },
      { typed: 'Okello', donor: 'Grace Okello', amount: '5' },
      { typed: 'Wanjiru', donor: 'Amani Wanjiru', amount: '20', split: { fund: 'Build', amount: '10' } },
      { typed: 'Mwangi', donor: 'Baraka Mwangi', amount: '18' },
      { typed: 'Achieng', donor: 'Chloe Achieng', amount: '22' },
      { typed: 'Otieno', donor: 'Daniel Otieno', amount: '8.75' },
      { typed: 'Mugisha', donor: 'Felix Mugisha', amount: '45' },
      { typed: 'Atim', donor: 'Hope Atim', amount: '16' },
      { typed: 'Lubega', donor: 'Isaac Lubega', amount: '9' },
      { typed: 'Kato household', donor: 'Kato household (Peter Kato)', amount: '70' },
    ];
    const cents = (s: string) => Math.round(Number(s) * 100);
    const intended = entries.reduce((sum, e, i) => sum + (i === 6 ? 2500 : cents(e.amount)) + (e.split ? cents(e.split.amount) : 0), 0);

    const page = await newPage(ctx);
    // Keeps each blob the console makes a URL of, so the test can read what a frame was given.
    await page.addInitScript(() => {
      const blobs = new Map<string, Blob>();
      (window as unknown as { blobOf(url: string): Blob | undefined }).blobOf = (url) => blobs.get(url);
      const create = URL.createObjectURL.bind(URL);
      URL.createObjectURL = (blob: Blob) => {
        const url = create(blob);
        blobs.set(url, blob);
        return url;
      };
    });
    await signIn(page, t.slug, 'treasurer', PASSWORD);
    await page.getByRole('navigation', { name: 'Areas' }).getByRole('link', { name: 'Giving' }).click();
    await page.getByRole('heading', { name: 'Giving' }).waitFor();
    await page.getByText('No batches yet. Start one with “New batch”').waitFor();
    await checkScreen(page, 'giving-batches-empty');

    // A new batch with the counted totals opens straight into entry.
    await page.getByRole('button', { name: 'New batch' }).click();
    await page.getByLabel('Name').fill('Christmas Eve offering');
    await page.getByLabel('Date').fill(BATCH_DATE);
    await page.getByLabel('Control total').fill((intended / 100).toFixed(2));
    await page.getByLabel('Control count').fill('20');
    await checkScreen(page, 'giving-batch-new');
    await page.getByRole('button', { name: 'Create and enter gifts' }).click();
    await page.getByRole('heading', { name: 'Christmas Eve offering' }).waitFor();
    const batchId = Number(new URL(page.url()).pathname.split('/').pop());
    await page.getByText('No gifts in this batch yet.').waitFor();
    const variance = page.getByTestId('variance');
    await checkScreen(page, 'giving-batch-empty');

    // From here on, the keyboard only.
    await page.getByRole('combobox', { name: 'Donor' }).focus();
    for (const [i, e] of entries.entries()) {
      await pickDonor(page, e.typed, e.donor);
      await page.keyboard.press('Tab');
      await page.keyboard.type(e.amount);
      if (e.fund) {
        await page.keyboard.press('Tab');
        await page.keyboard.type(e.fund);
        await page.getByRole('option', { name: e.fund === 'Gen' ? 'General' : 'Building' }).waitFor();
        await page.keyboard.press('Enter');
        await expect.poll(() => page.getByRole('combobox', { name: 'Fund' }).inputValue()).toBe(e.fund === 'Gen' ? 'General' : 'Building');
      }
      if (e.split) {
        await tabTo(page, /\|Split$/);
        await page.keyboard.press('Enter');
        await expect.poll(() => focused(page)).toMatch(/Fund \(line 2\)/);
        await page.keyboard.type(e.split.fund);
        await page.getByRole('option', { name: 'Building' }).waitFor();
        await page.keyboard.press('Enter');
        await expect.poll(() => page.getByRole('combobox', { name: 'Fund (line 2)' }).inputValue()).toBe('Building');
        await page.keyboard.press('Tab');
        await page.keyboard.type(e.split.amount);
        await expect.poll(() => page.getByLabel('Amount (line 2)').inputValue()).toBe(e.split.amount);
      }
      await page.keyboard.press('Enter');
      await page.getByText(new RegExp(`^${i + 1} gifts?, newest first$`)).waitFor();
      await expect.poll(() => page.getByRole('combobox', { name: 'Donor' }).evaluate((el) => el === document.activeElement)).toBe(true);
      if (i === 9) await checkScreen(page, 'giving-batch-entry');
    }

    // The running total, count and variance: 225.00 over, 20 of 20.
    await page.getByText('20 of 20').waitFor();
    await expect.poll(() => variance.textContent()).toMatch(/^Over by \$225\.00$/);
    const stored = (await api(ctx.app, treasurer.token).get(`/api/finance/batches/${batchId}`)).json();
    expect(stored).toMatchObject({ status: 'Open', contributionCount: 20, totalAmount: intended + 22500, variance: -22500 });
    const gifts = (await api(ctx.app, treasurer.token).get(`/api/finance/contributions?batchId=${batchId}&sort=date&limit=100`)).json().data;
    expect(gifts.map((g: { lines: { fund: { name: string } }[] }) => g.lines.map((l) => l.fund.name).join('+'))).toEqual([
      'Building', 'Building', 'Building', 'Building', 'General', 'General', 'General', 'General', 'General', 'General', 'General', 'General', 'General+Building',
      'General', 'General', 'General', 'General', 'General', 'General', 'General',
    ]);
    expect(gifts[12]).toMatchObject({ amount: 3000, lines: [{ amount: 2000 }, { amount: 1000 }] });
    expect(gifts[2].contact.id).toBe(peter.id);
    expect(gifts[0].contact.id).toBe(grace.id);

    // Closing refuses with the API's message (no force without finance:admin).
    await tabTo(page, /\|Close batch$/, true);
    await page.keyboard.press('Enter');
    await page.getByText('The batch does not balance').waitFor();
    await page.getByText(/Entered \$846\.50 in 20 gifts; the control is \$621\.50 in 20\. Over by \$225\.00\./).waitFor();
    await page.getByText(/^The server said: .*does not balance/).waitFor();
    await page.getByText('ask a finance administrator to close it as it is').waitFor();
    await expect(page.getByRole('button', { name: 'Close anyway' }).count()).resolves.toBe(0);
    await checkScreen(page, 'giving-batch-variance');

    // Fix the typo: Tab to the gift, Enter, the amount is selected, type over it, Enter.
    await tabTo(page, /^Fix gift from Esther Nakato, \$250\.00/);
    await page.keyboard.press('Enter');
    await page.getByText('Fix the gift from Esther Nakato').waitFor();
    await checkScreen(page, 'giving-batch-fix');
    await page.keyboard.type('25');
    await page.keyboard.press('Enter');
    await expect.poll(() => variance.textContent()).toMatch(/^Balanced/);
    await expect.poll(() => page.getByRole('combobox', { name: 'Donor' }).evaluate((el) => el === document.activeElement)).toBe(true);

    // Balanced: it closes.
    await tabTo(page, /\|Close batch$/, true);
    await page.keyboard.press('Enter');
    await page.getByText(/This batch is closed by treasurer/).waitFor();
    await expect(page.getByRole('combobox', { name: 'Donor' }).count()).resolves.toBe(0);
    await expect(page.getByRole('button', { name: 'Reopen batch' }).count()).resolves.toBe(0);
    await checkScreen(page, 'giving-batch-closed');
    expect((await api(ctx.app, treasurer.token).get(`/api/finance/batches/${batchId}`)).json()).toMatchObject({ status: 'Closed', totalAmount: intended, variance: 0, contributionCount: 20 });

    // The batches list shows it balanced; contributions filter by donor and fund.
    await page.getByRole('navigation', { name: 'Giving' }).getByRole('link', { name: 'Batches' }).click();
    await page.getByRole('link', { name: 'Christmas Eve offering' }).waitFor();
    await page.getByText('1 batch').waitFor();
    await checkScreen(page, 'giving-batches');
    await page.getByRole('navigation', { name: 'Giving' }).getByRole('link', { name: 'Contributions' }).click();
    await page.getByText('20 gifts').waitFor();
    await page.getByLabel('Donor').fill('Okello');
    await page.getByText('2 gifts').waitFor();
    await checkScreen(page, 'giving-contributions');
    const csv = page.waitForResponse((r) => r.url().includes('/api/finance/contributions/export'));
    await page.getByRole('button', { name: 'Export CSV' }).click();
    const exported = await csv;
    expect(exported.status()).toBe(200);
    const exportUrl = new URL(exported.url());
    expect(exportUrl.searchParams.get('q')).toBe('Okello');
    // The same request with the treasurer's token: a header and Grace's two gifts.
    const again = await api(ctx.app, treasurer.token).get(exportUrl.pathname + exportUrl.search);
    expect(again.body.trim().split(/\r?\n/)).toHaveLength(3);

    // Pledges with their progress.
    const pledge = await api(ctx.app, t.admin.token).post('/api/finance/pledges', {
      contactId: grace.id, fundId: gifts[0].lines[0].fund.id, amount: 20000, frequency: 'OneTime', startDate: `${lastYear}-01-01`, campaign: 'New roof',
    });
    expect(pledge.statusCode, pledge.body).toBe(201);
    await page.getByRole('navigation', { name: 'Giving' }).getByRole('link', { name: 'Pledges' }).click();
    await page.getByRole('progressbar', { name: /Grace Okello: 25% of the pledge given/ }).waitFor();
    await page.getByText('$50.00 of $200.00 (25%)').waitFor();
    await checkScreen(page, 'giving-pledges');

    // The Kato household's statement: the summary, and the PDF in place.
    await page.getByRole('navigation', { name: 'Giving' }).getByRole('link', { name: 'Statements' }).click();
    await page.getByRole('heading', { name: 'Statements' }).waitFor();
    await expect(page.getByRole('heading', { name: 'Year-end statements for everyone' }).count()).resolves.toBe(0);
    await checkScreen(page, 'giving-statements-empty');
    await page.getByRole('combobox', { name: 'Donor or household' }).fill('Kato household');
    await page.getByRole('option', { name: /^Kato household \(Peter Kato\)/ }).click();
    const pdfResponse = page.waitForResponse((r) => r.url().includes(`/api/finance/statements/households/${kato.id}`) && r.url().includes('format=pdf'));
    await page.getByRole('button', { name: 'Show statement' }).click();
    const pdf = await pdfResponse;
    expect(pdf.status()).toBe(200);
    expect(pdf.headers()['content-type']).toBe('application/pdf');
    // (The browser keeps no copy of a body read as a blob: the same request again, with the treasurer's token.)
    const pdfUrl = new URL(pdf.url());
    const body = (await api(ctx.app, treasurer.token).get(pdfUrl.pathname + pdfUrl.search)).rawPayload;
    expect(body.subarray(0, 5).toString()).toBe('%PDF-');
    for (const expected of ['Kato household', 'Peter Kato', 'Ruth Kato', 'USD 205.00']) expect(pdfText(body)).toContain(expected);
    await page.getByRole('heading', { name: /^Kato household: / }).waitFor();
    await page.getByRole('table', { name: 'Statement totals' }).getByText('$205.00').waitFor();
    const frame = page.getByTitle('Giving statement of Kato household');
    await frame.waitFor();
    const src = await frame.getAttribute('data');
    expect(await frame.getAttribute('type')).toBe('application/pdf');
    expect(src).toMatch(/^blob:/);
    // The frame shows that statement: its blob is the PDF the API answered.
    const shown = Buffer.from(await page.evaluate(async (url) => {
      const blob = (window as unknown as { blobOf(url: string): Blob | undefined }).blobOf(url);
      return blob ? Array.from(new Uint8Array(await blob.arrayBuffer())) : [];
    }, src!));
    expect(shown.subarray(0, 5).toString()).toBe('%PDF-');
    expect(shown.length).toBe(Number(pdf.headers()['content-length'] ?? shown.length));
    for (const expected of ['Kato household', 'Peter Kato', 'Ruth Kato', 'USD 205.00']) expect(pdfText(shown)).toContain(expected);
    // In place, at a readable size (headless Chromium has no PDF viewer to draw it with: the pixels are not checked).
    expect((await frame.boundingBox())!.height).toBeGreaterThan(400);
    await checkScreen(page, 'giving-statement');
    await page.context().close();
  });

  it('a finance administrator closes an unbalanced batch anyway, reopens it, and downloads every year-end statement as one ZIP', async () => {
    const t = await newTenant(ctx);
    const fund = await newFund(ctx, t.admin.token, { name: 'General' });
    const ada = await newPerson(ctx, t, 'Ada', 'Lovelace');
    const batch = (await api(ctx.app, t.admin.token).post('/api/finance/batches', { name: 'Evening service', date: BATCH_DATE, controlAmount: 5000, controlCount: 2 })).json();
    await api(ctx.app, t.admin.token).post('/api/finance/contributions', { contactId: ada.id, date: BATCH_DATE, amount: 3000, method: 'Cash', fundId: fund.id, batchId: batch.id });
    const page = await newPage(ctx);
    await signIn(page, t.slug, 'admin', PASSWORD);
    await page.goto(`/giving/batches/${batch.id}`);
    await page.getByRole('heading', { name: 'Evening service' }).waitFor();
    await expect.poll(() => page.getByTestId('variance').textContent()).toMatch(/^Short by \$20\.00$/);
    await page.getByRole('button', { name: 'Close batch' }).click();
    await page.getByText(/does not balance/).first().waitFor();
    await checkScreen(page, 'giving-batch-force');
    await page.getByRole('button', { name: 'Close anyway' }).click();
    await page.getByText(/This batch is closed by admin/).waitFor();
    expect((await api(ctx.app, t.admin.token).get(`/api/finance/batches/${batch.id}`)).json()).toMatchObject({ status: 'Closed', variance: 2000 });
    await page.getByRole('button', { name: 'Reopen batch' }).click();
    await page.getByRole('combobox', { name: 'Donor' }).waitFor();
    expect((await api(ctx.app, t.admin.token).get(`/api/finance/batches/${batch.id}`)).json()).toMatchObject({ status: 'Open' });

    await page.getByRole('navigation', { name: 'Giving' }).getByRole('link', { name: 'Statements' }).click();
    await page.getByRole('heading', { name: 'Year-end statements for everyone' }).waitFor();
    await checkScreen(page, 'giving-statements-admin');
    const zip = page.waitForResponse((r) => r.url().endsWith('/api/finance/statements/bulk'));
    await page.getByRole('button', { name: 'Download all statements' }).click();
    const answer = await zip;
    expect(answer.status()).toBe(200);
    expect(answer.headers()['content-type']).toBe('application/zip');
    expect(answer.headers()['x-statement-count']).toBe('1');
    await page.getByText(`The ${lastYear} statements were downloaded`).waitFor();
    await page.context().close();
  });
});
