import fs from 'node:fs';
import { gzipSync } from 'node:zlib';
import type { Page } from 'playwright-core';
import { expect, it } from 'vitest';
import { api } from '../helpers/app.js';
import { checkScreen, describeInBrowser, newPage, SCREENSHOTS, setupBrowser } from '../helpers/browser.js';
import { newPerson } from '../helpers/contacts.factories.js';
import { newTenant, PASSWORD } from '../helpers/factories.js';
import { newGroup } from '../helpers/groups.factories.js';

const ctx = setupBrowser();

/** The focused element: its accessible name (aria-label, its label, or its text) and its outline as computed. */
function focused(page: Page) {
  return page.evaluate(() => {
    const el = document.activeElement as HTMLElement | null;
    if (!el || el === document.body) return { name: '', tag: 'BODY', outline: 'none', outlineWidth: 0 };
    const labelled = el.id ? document.querySelector(`label[for="${CSS.escape(el.id)}"]`) : null;
    const name = el.getAttribute('aria-label') ?? labelled?.textContent ?? el.textContent ?? '';
    const style = getComputedStyle(el);
    return { name: name.replace(/\s*\*$/, '').trim(), tag: el.tagName, outline: style.outlineStyle, outlineWidth: parseFloat(style.outlineWidth) };
  });
}

/** Presses Tab until the focused element's name matches (at most 40 times), then checks it shows where the focus is. */
async function tabTo(page: Page, name: string | RegExp): Promise<void> {
  for (let i = 0; i < 40; i++) {
    await page.keyboard.press('Tab');
    const now = await focused(page);
    if (typeof name === 'string' ? now.name === name : name.test(now.name)) {
      await expectFocusVisible(page);
      return;
    }
  }
  throw new Error(`Tab never reached ${name}`);
}

/** The focused element draws a visible outline (console.md "Quality bars": keyboard use with a visible focus). */
async function expectFocusVisible(page: Page): Promise<void> {
  const now = await focused(page);
  expect(now.outline, `focus outline of ${now.tag} “${now.name}”`).not.toBe('none');
  expect(now.outlineWidth, `focus outline width of ${now.tag} “${now.name}”`).toBeGreaterThanOrEqual(1);
}

describeInBrowser('the console from the keyboard alone', { timeout: 240_000 }, () => {
  it('signs in, finds a person with Ctrl+K, edits their phone and adds them to a group without the mouse, the focus visible at each step', async () => {
    const t = await newTenant(ctx);
    const ruth = await newPerson(ctx, t, 'Ruth', 'Nakato', { phones: [{ value: '+256 772 418 903' }] });
    const group = await newGroup(ctx, t, { name: 'Kisaasi Fellowship', category: 'Fellowship' });
    const page = await newPage(ctx);
    const keys = page.keyboard;

    // Sign in: the church field has the focus on arrival.
    await page.goto('/sign-in');
    await page.getByLabel('Church').waitFor();
    await expect.poll(async () => (await focused(page)).name).toBe('Church');
    await expectFocusVisible(page);
    await keys.type(t.slug);
    await tabTo(page, 'Username or email');
    await keys.type('admin');
    await tabTo(page, 'Password');
    await keys.type(PASSWORD);
    await tabTo(page, 'Sign in');
    await checkScreen(page, 'keyboard-sign-in');
    await keys.press('Enter');
    await page.getByRole('heading', { name: 'Home' }).waitFor();

    // Ctrl+K: the header's search; Enter opens the first result.
    await keys.press('Control+k');
    await expect.poll(async () => (await focused(page)).name).toMatch(/^Search all people/);
    await expectFocusVisible(page);
    await keys.type('Nakato');
    await page.getByRole('option', { name: /Ruth Nakato/ }).waitFor();
    await checkScreen(page, 'keyboard-search');
    await keys.press('Enter');
    await page.getByRole('heading', { name: 'Ruth Nakato' }).waitFor();

    // Edit: the phone field, then Save.
    await tabTo(page, 'Edit');
    await keys.press('Enter');
    await page.getByRole('heading', { name: 'Edit Ruth Nakato' }).waitFor();
    await tabTo(page, 'Phone');
    await keys.press('Control+a');
    await keys.type('+256 700 555 123');
    await checkScreen(page, 'keyboard-edit');
    await tabTo(page, 'Save');
    await keys.press('Enter');
    await page.getByRole('heading', { name: 'Ruth Nakato' }).waitFor();
    await page.getByRole('link', { name: '+256 700 555 123' }).waitFor();

    // Add to a group: type part of its name, arrow to it, Enter, then the Add button.
    await tabTo(page, 'Add to a group');
    await keys.type('Kisaasi');
    await page.getByRole('option', { name: 'Kisaasi Fellowship' }).waitFor();
    await keys.press('ArrowDown');
    await keys.press('Enter');
    await expect.poll(() => page.getByRole('combobox', { name: 'Add to a group' }).inputValue()).toBe('Kisaasi Fellowship');
    await tabTo(page, 'Add');
    await checkScreen(page, 'keyboard-add-to-group');
    await keys.press('Enter');
    await page.getByRole('region', { name: 'Groups' }).getByRole('link', { name: 'Kisaasi Fellowship' }).waitFor();

    const stored = (await api(ctx.app, t.admin.token).get(`/api/crm/contacts/${ruth.id}`)).json();
    expect(stored.phones.map((p: { value: string }) => p.value)).toEqual(['+256 700 555 123']);
    expect(stored.groupMemberships.map((m: { groupId: number }) => m.groupId)).toEqual([group.id]);
    await page.context().close();
  });

  it('the first screen is usable well under a second, Home soon after signing in, on under 250 KB of JavaScript (gzip)', async () => {
    const t = await newTenant(ctx);
    const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
    const gzip = (body: Buffer) => gzipSync(body, { level: 9 }).length;

    /** From navigation start to the sign-in form taking typing (the church field focused and echoing a key), in the page's own clock. */
    async function signInUsable(page: Page, load: () => Promise<unknown>): Promise<number> {
      await load();
      await page.waitForFunction(() => document.activeElement instanceof HTMLInputElement && document.activeElement.labels?.[0]?.textContent?.startsWith('Church'));
      await page.keyboard.type('x');
      await page.waitForFunction(() => (document.activeElement as HTMLInputElement).value.endsWith('x'));
      return page.evaluate(() => performance.now());
    }

    // Cold: a new browser profile (nothing cached), counting the JavaScript the first screen fetched.
    const cold: number[] = [];
    let scripts: { url: string; gzip: number }[] = [];
    for (let i = 0; i < 3; i++) {
      const page = await newPage(ctx);
      const fetched: Promise<{ url: string; gzip: number }>[] = [];
      page.on('response', (r) => { if (r.url().endsWith('.js')) fetched.push(r.body().then((b) => ({ url: new URL(r.url()).pathname, gzip: gzip(b) }))); });
      cold.push(await signInUsable(page, () => page.goto('/sign-in')));
      scripts = await Promise.all(fetched);
      await page.context().close();
    }
    // Warm: a reload, the hashed assets from the cache.
    const page = await newPage(ctx);
    await page.goto('/sign-in');
    const warm: number[] = [];
    for (let i = 0; i < 3; i++) warm.push(await signInUsable(page, () => page.reload()));

    // Sign-in submit to Home usable: the dashboard's figures shown and the header's search taking focus.
    const home: number[] = [];
    for (let i = 0; i < 3; i++) {
      if (i > 0) {
        await page.getByRole('button', { name: 'admin', exact: true }).click();
        await page.getByRole('menuitem', { name: 'Sign out' }).click();
      }
      await page.getByLabel('Church').fill(t.slug);
      await page.getByLabel('Username or email').fill('admin');
      await page.getByLabel(/^Password/).fill(PASSWORD);
      await page.getByRole('button', { name: 'Sign in' }).focus();
      const submitted = await page.evaluate(() => performance.now());
      await page.keyboard.press('Enter');
      await page.getByText('My open tasks').waitFor();
      await page.keyboard.press('Control+k');
      await page.waitForFunction(() => document.activeElement?.getAttribute('aria-label')?.startsWith('Search'));
      home.push((await page.evaluate(() => performance.now())) - submitted);
    }
    await page.context().close();

    // The initial JavaScript as index.html names it (the entry and its preloads), and as the browser fetched it.
    const html = await (await fetch(`${ctx.origin}/`)).text();
    const named = [...html.matchAll(/(?:src|href)="(\/assets\/[^"]+\.js)"/g)].map((m) => m[1]);
    let namedBytes = 0;
    for (const file of named) namedBytes += gzip(Buffer.from(await (await fetch(`${ctx.origin}${file}`)).arrayBuffer()));
    const fetchedBytes = scripts.reduce((sum, s) => sum + s.gzip, 0);

    const figures = {
      signInUsableColdMs: cold.map(Math.round), signInUsableWarmMs: warm.map(Math.round), signInToHomeUsableMs: home.map(Math.round),
      medians: { cold: Math.round(median(cold)), warm: Math.round(median(warm)), home: Math.round(median(home)) },
      initialJsGzipKB: { indexHtml: +(namedBytes / 1024).toFixed(1), fetchedBySignIn: +(fetchedBytes / 1024).toFixed(1) },
      signInScripts: scripts.map((s) => `${s.url} ${(s.gzip / 1024).toFixed(1)} KB`),
    };
    console.log(`console performance: ${JSON.stringify(figures, null, 2)}`);
    fs.writeFileSync(`${SCREENSHOTS}/performance.json`, `${JSON.stringify(figures, null, 2)}\n`);
    // Generous bounds so a loaded CI machine does not flake; the figures above are the measure (console.md asks under 1 s).
    expect(median(cold)).toBeLessThan(3000);
    expect(median(warm)).toBeLessThan(3000);
    expect(median(home)).toBeLessThan(3000);
    expect(namedBytes).toBeLessThan(250 * 1024);
    expect(fetchedBytes).toBeLessThan(250 * 1024);
  });
});
