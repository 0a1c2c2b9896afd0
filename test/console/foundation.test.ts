import { gzipSync } from 'node:zlib';
import { expect, it } from 'vitest';
import { checkScreen, describeInBrowser, newPage, setupBrowser, signIn } from '../helpers/browser.js';
import { newTenant, PASSWORD } from '../helpers/factories.js';

const ctx = setupBrowser();

describeInBrowser('the console: serving, sign-in, session', { timeout: 180_000 }, () => {
  it('serves the console at / with the strict content security policy, hashed assets cached, and /api 404s as JSON', async () => {
    const index = await fetch(`${ctx.origin}/people/12`);
    expect(index.status).toBe(200);
    expect(index.headers.get('content-type')).toMatch(/text\/html/);
    expect(index.headers.get('content-security-policy')).toMatch(/script-src 'self'(;|$)/);
    const html = await index.text();
    expect(html).not.toMatch(/<script>|<script type="module">/);
    const asset = /src="(\/assets\/[^"]+\.js)"/.exec(html)![1];
    const js = await fetch(`${ctx.origin}${asset}`);
    expect(js.status).toBe(200);
    expect(js.headers.get('cache-control')).toBe('public, max-age=31536000, immutable');
    const missing = await fetch(`${ctx.origin}/api/nope`);
    expect(missing.status).toBe(404);
    expect(await missing.json()).toMatchObject({ statusCode: 404, error: 'Not Found' });
    expect((await fetch(`${ctx.origin}/assets/nope.js`)).status).toBe(404);
  });

  it('the first screen loads under 250 KB of JavaScript (gzip); the areas are separate chunks', async () => {
    const html = await (await fetch(`${ctx.origin}/`)).text();
    const initial = [...html.matchAll(/(?:src|href)="(\/assets\/[^"]+\.js)"/g)].map((m) => m[1]);
    let bytes = 0;
    for (const file of initial) bytes += gzipSync(Buffer.from(await (await fetch(`${ctx.origin}${file}`)).arrayBuffer()), { level: 9 }).length;
    console.log(`initial JavaScript: ${initial.length} files, ${(bytes / 1024).toFixed(1)} KB gzip`);
    expect(bytes).toBeLessThan(250 * 1024);
    expect(initial.some((f) => /\/(home|people|groups)-/.test(f))).toBe(false);
  });

  it('an admin signs in (the church remembered), stays signed in across a reload, and sign-out ends the session', async () => {
    const t = await newTenant(ctx);
    const page = await newPage(ctx);
    const started = Date.now();
    await page.goto('/');
    await page.getByLabel('Church').waitFor();
    console.log(`first screen (sign-in) interactive in ${Date.now() - started} ms (new browser context)`);
    const again = Date.now();
    await page.reload();
    await page.getByLabel('Church').waitFor();
    console.log(`first screen (sign-in) interactive in ${Date.now() - again} ms (reload, assets cached)`);
    await checkScreen(page, 'sign-in');
    await page.getByLabel(/^Password/).fill('wrong password');
    await page.getByLabel('Church').fill(t.slug);
    await page.getByLabel('Username or email').fill('admin');
    await page.getByRole('button', { name: 'Sign in' }).click();
    await expect(page.getByRole('alert').textContent()).resolves.toContain('Invalid credentials');

    await signIn(page, t.slug, 'admin', PASSWORD);
    await expect(page.getByText(`Church ${t.slug}`)).toBeTruthy();
    await checkScreen(page, 'home');
    const cookies = await page.context().cookies();
    const refresh = cookies.find((c) => c.name === 'parish_refresh')!;
    expect(refresh).toMatchObject({ httpOnly: true, sameSite: 'Strict', path: '/api/auth' });
    expect(await page.evaluate(() => document.cookie)).not.toContain('parish_refresh');

    await page.reload();
    await page.getByRole('heading', { name: 'Home' }).waitFor();

    const cookieBeforeSignOut = (await page.context().cookies()).find((c) => c.name === 'parish_refresh')!.value;
    await page.getByRole('button', { name: 'admin', exact: true }).click();
    await page.getByRole('menuitem', { name: 'Sign out' }).click();
    await page.getByRole('button', { name: 'Sign in' }).waitFor();
    expect(await page.getByLabel('Church').inputValue()).toBe(t.slug);
    // The refresh cookie no longer works, even replayed by hand.
    const replay = await fetch(`${ctx.origin}/api/auth/refresh`, {
      method: 'POST', headers: { 'content-type': 'application/json', cookie: `parish_refresh=${cookieBeforeSignOut}` }, body: '{}',
    });
    expect(replay.status).toBe(401);

    await page.getByRole('link', { name: 'Forgot your password?' }).click();
    await page.getByLabel(/^Username or email/).fill(`admin@${t.slug}.example.org`);
    await checkScreen(page, 'forgot-password');
    await page.getByRole('button', { name: 'Email me a link' }).click();
    await page.getByRole('status').getByText(/reset link has been sent/).waitFor();
    await expect.poll(() => ctx.mailer.sent.some((m) => m.to === `admin@${t.slug}.example.org` && m.text.includes(`/reset-password/`))).toBe(true);
    await page.context().close();
  });
});
