import { AxeBuilder } from '@axe-core/playwright';
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import type { AddressInfo } from 'node:net';
import { chromium, type Browser, type Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect } from 'vitest';
import type { TestContext } from './app.js';
import { setupTestApp } from './app.js';

/** Debian's Chromium (.ci/run installs it when absent); CHROMIUM_PATH points elsewhere. */
export const CHROMIUM = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';
const hasChromium = fs.existsSync(CHROMIUM);
if (!hasChromium && process.env.CI === 'true') throw new Error(`Chromium is missing at ${CHROMIUM}: the console's browser tests cannot run (apt-get install chromium)`);
if (!hasChromium) console.warn(`Chromium is missing at ${CHROMIUM}: skipping the console's browser tests (set CI=true to fail instead)`);

/**
 * describe, or describe.skip without Chromium. Each journey runs again once when it fails: a real
 * browser against a real server on a loaded 2-core machine now and then misses a beat (the treasurer's
 * 20 keyboard gifts failed once on its first gift in a whole-suite run, and passed alone and in the
 * next runs), while a broken screen fails both times. Each journey makes its own tenant and browser
 * context, so a second run starts clean.
 */
export function describeInBrowser(name: string, options: { timeout?: number }, body: () => void): void {
  (hasChromium ? describe : describe.skip)(name, { retry: 1, ...options }, body);
}

export const SCREENSHOTS = 'test-results/console';

export interface BrowserContext extends TestContext {
  browser: Browser;
  /** The server's origin, e.g. http://127.0.0.1:41234 */
  origin: string;
}

/**
 * A real server (the app on this file's test database, listening on a free loopback port) serving
 * the built console, and one Chromium for the whole file. Builds the console first when it changed.
 */
export function setupBrowser(): BrowserContext {
  // Before the app is built: the app registers the console's files it finds.
  beforeAll(() => {
    if (hasChromium) execFileSync(process.execPath, ['scripts/build-console.mjs'], { stdio: 'inherit' });
  }, 300_000);
  const ctx = setupTestApp() as BrowserContext;
  beforeAll(async () => {
    if (!hasChromium) return;
    await ctx.app.listen({ host: '127.0.0.1', port: 0 });
    ctx.origin = `http://127.0.0.1:${(ctx.app.server.address() as AddressInfo).port}`;
    ctx.browser = await chromium.launch({ executablePath: CHROMIUM, args: ['--no-sandbox', '--disable-dev-shm-usage'] });
    fs.mkdirSync(SCREENSHOTS, { recursive: true });
  }, 300_000);
  afterAll(async () => {
    await ctx.browser?.close();
  });
  return ctx;
}

/** A fresh browser context (its own cookies and storage) and page at desktop width. */
export async function newPage(ctx: BrowserContext): Promise<Page> {
  const context = await ctx.browser.newContext({ baseURL: ctx.origin, viewport: { width: 1280, height: 800 }, colorScheme: 'light' });
  const page = await context.newPage();
  page.setDefaultTimeout(15_000);
  return page;
}

/**
 * Checks the screen with axe (no serious or critical violation, console.md "Quality bars") and
 * writes its screenshots at 360 px and 1280 px wide into test-results/console/.
 */
export async function checkScreen(page: Page, name: string): Promise<void> {
  await page.mouse.move(0, 0); // no hover state (tooltips, hovered links) in the check or the pictures
  const { violations } = await new AxeBuilder({ page }).analyze();
  const bad = violations.filter((v) => v.impact === 'serious' || v.impact === 'critical');
  expect(bad.map((v) => `${v.id}: ${v.help} (${v.nodes.map((n) => n.target.join(' ')).join(', ')})`), `axe on ${name}`).toEqual([]);
  const viewport = page.viewportSize() ?? { width: 1280, height: 800 };
  for (const width of [360, 1280]) {
    await page.setViewportSize({ width, height: width === 360 ? 780 : 800 });
    await page.waitForTimeout(150);
    await page.screenshot({ path: `${SCREENSHOTS}/${name}-${width}.png`, fullPage: true });
  }
  await page.setViewportSize(viewport);
}

/**
 * Checks and pictures the screen from its top (the fixed header stays on top in the full-page pictures)
 * without its toasts, which would hide the title: they are closed, and any still on the way out (or
 * arriving from a request answered late) is left out of the check and the pictures, then shown again.
 */
export async function screen(page: Page, name: string): Promise<void> {
  for (const toast of await page.getByRole('button', { name: 'Close the message' }).all()) await toast.click({ timeout: 1_000 }).catch(() => undefined);
  const hidden = await page.addStyleTag({ content: '.mantine-Notifications-root { display: none !important; }' });
  try {
    await page.evaluate(() => window.scrollTo(0, 0));
    await checkScreen(page, name);
  } finally {
    await hidden.evaluate((style) => (style as Element).remove());
  }
}

/** Signs in through the sign-in screen and waits for Home. */
export async function signIn(page: Page, church: string, username: string, password: string): Promise<void> {
  await page.goto('/sign-in');
  await page.getByLabel('Church').fill(church);
  await page.getByLabel('Username or email').fill(username);
  await page.getByLabel(/^Password/).fill(password);
  await page.getByRole('button', { name: 'Sign in' }).click();
  await page.getByRole('heading', { name: 'Home' }).waitFor();
}
