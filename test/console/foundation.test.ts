import { expect, it } from 'vitest';
import { checkScreen, describeInBrowser, newPage, setupBrowser, signIn } from '../helpers/browser.js';
import { newTenant, PASSWORD } from '../helpers/factories.js';

const ctx = setupBrowser();

describeInBrowser('the console: serving, sign-in, session', () => {
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

  it('an admin signs in (the church remembered), stays signed in across a reload, and sign-out ends the session', async () => {
    const t = await newTenant(ctx);
    const page = await newPage(ctx);
    const started = Date.now();
    await page.goto('/');
    await page.getByLabel('Church').waitFor();
    console.log(`first screen (sign-in) interactive in ${Date.now() - started} ms`);
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
    await page.context().close();
  });
});
