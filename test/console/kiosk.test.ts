import { expect, it } from 'vitest';
import { api } from '../helpers/app.js';
import { newService, newSession } from '../helpers/attendance.factories.js';
import { checkScreen, describeInBrowser, newPage, setupBrowser } from '../helpers/browser.js';
import { newPerson } from '../helpers/contacts.factories.js';
import { newTenant, newUser, PASSWORD } from '../helpers/factories.js';
import { newGroup } from '../helpers/groups.factories.js';
import { newHousehold } from '../helpers/households.factories.js';

const ctx = setupBrowser();
const today = () => new Date().toISOString().slice(0, 10);

describeInBrowser('the console: check-in kiosk', { timeout: 180_000 }, () => {
  it('a kiosk account checks two children of a family into two rooms, gets one PDF of labels, cannot open People, and checks the family out by code', async () => {
    const t = await newTenant(ctx);
    const church = await newGroup(ctx, t, { name: 'Church', category: 'Church' });
    const toddlers = await newGroup(ctx, t, { name: 'Toddlers', parent: church });
    const juniors = await newGroup(ctx, t, { name: 'Juniors', parent: church });
    const service = await newService(ctx, t, church.id, { name: 'Sunday Worship', startTime: '09:30' });
    const session = await newSession(ctx, t, { serviceId: service.id }, today());
    const mum = await newPerson(ctx, t, 'Grace', 'Okello', { phones: [{ value: '+256 772 418 903' }] });
    const amani = await newPerson(ctx, t, 'Amani', 'Okello', { person: { firstName: 'Amani', lastName: 'Okello', dateOfBirth: '2019-03-02', checkinNote: 'Peanut allergy' } });
    const baraka = await newPerson(ctx, t, 'Baraka', 'Okello', { person: { firstName: 'Baraka', lastName: 'Okello', dateOfBirth: '2021-07-15' } });
    await newHousehold(ctx, t, { members: [{ contactId: mum.id, role: 'Head' }, { contactId: amani.id, role: 'Child' }, { contactId: baraka.id, role: 'Child' }] });
    await newPerson(ctx, t, 'Samuel', 'Okecho');
    const kiosk = await newUser(ctx, t, 'Check-in', { username: 'kiosk' });

    const page = await newPage(ctx);
    const calls: string[] = [];
    page.on('request', (r) => { if (new URL(r.url()).pathname.startsWith('/api/')) calls.push(`${r.method()} ${new URL(r.url()).pathname}`); });

    // Signing in lands on the kiosk, full screen: no navigation of the office console.
    await page.goto('/sign-in');
    await page.getByLabel('Church').fill(t.slug);
    await page.getByLabel('Username or email').fill('kiosk');
    await page.getByLabel(/^Password/).fill(PASSWORD);
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.getByRole('heading', { name: /^Check in/ }).waitFor();
    expect(new URL(page.url()).pathname).toBe('/kiosk');
    await expect(page.getByRole('navigation', { name: 'Areas' }).count()).resolves.toBe(0);
    await page.getByText('Sunday Worship at 09:30 · today').waitFor();
    await checkScreen(page, 'kiosk-start');

    // Look up, tap the two children, check in: lookup, check-in and labels, three requests.
    calls.length = 0;
    await page.getByLabel("Family's last name or phone number").fill('okello');
    await page.getByRole('button', { name: 'Find' }).click();
    const amaniCard = page.getByRole('checkbox', { name: 'Amani Okello' });
    await amaniCard.waitFor();
    await expect(page.getByText('Samuel Okecho').count()).resolves.toBe(0);
    await expect(page.getByText('Peanut').count()).resolves.toBe(0);
    await amaniCard.click();
    await page.getByRole('checkbox', { name: 'Baraka Okello' }).click();
    await expect(amaniCard.getAttribute('aria-checked')).resolves.toBe('true');
    const box = await amaniCard.boundingBox();
    expect(box!.height).toBeGreaterThanOrEqual(44);
    await page.getByLabel('Room for Amani').selectOption({ label: 'Juniors' });
    await page.getByLabel('Room for Baraka').selectOption({ label: 'Toddlers' });
    await checkScreen(page, 'kiosk-family');

    const labels = page.waitForResponse((r) => r.url().includes('/api/attendance/checkins/labels'));
    await page.getByRole('button', { name: 'Check in Amani, Baraka' }).click();
    await page.getByText('Amani Okello (Juniors), Baraka Okello (Toddlers)').waitFor();
    const pdf = await labels;
    expect(pdf.status()).toBe(200);
    expect(pdf.headers()['content-type']).toBe('application/pdf');
    await page.getByRole('link', { name: 'Print labels' }).waitFor();
    const href = await page.getByRole('link', { name: 'Print labels' }).getAttribute('href');
    expect(href).toMatch(/^blob:/);
    // The one request made one PDF: a page per child and the parent stub (fetched again with the kiosk's token).
    const again = await api(ctx.app, kiosk.token).get(new URL(pdf.url()).pathname + new URL(pdf.url()).search);
    expect(again.headers['content-type']).toBe('application/pdf');
    expect(again.rawPayload.subarray(0, 5).toString()).toBe('%PDF-');
    expect(again.rawPayload.toString('latin1').match(/\/Type \/Page\b/g)).toHaveLength(3);
    expect(calls).toEqual(['GET /api/attendance/checkins/lookup', 'POST /api/attendance/checkins', 'GET /api/attendance/checkins/labels']);
    const stored = (await api(ctx.app, t.admin.token).get(`/api/attendance/checkins?sessionId=${session.id}`)).json();
    expect(stored.data.map((k: { contact: { id: number } }) => k.contact.id)).toEqual([amani.id, baraka.id]);
    expect(stored.data.map((k: { room: { id: number } }) => k.room.id)).toEqual([juniors.id, toddlers.id]);
    expect(new Set(stored.data.map((k: { securityCode: string }) => k.securityCode)).size).toBe(1);
    const code: string = stored.data[0].securityCode;
    await page.getByLabel(`Security code ${code.split('').join(' ')}`).waitFor();
    await checkScreen(page, 'kiosk-checked-in');

    // People is not for a kiosk: the address leads back to the kiosk, and the API refuses.
    await page.goto('/people');
    await page.getByRole('heading', { name: /^Check in/ }).waitFor();
    expect(new URL(page.url()).pathname).toBe('/kiosk');
    expect((await api(ctx.app, kiosk.token).get('/api/crm/contacts')).statusCode).toBe(403);
    expect((await api(ctx.app, kiosk.token).get(`/api/crm/contacts/${amani.id}`)).statusCode).toBe(403);

    // Check-out: a mistyped code says so; the right one checks the family out; again, it says when.
    await page.getByText('Check out', { exact: true }).first().click();
    await page.getByRole('heading', { name: /^Check out/ }).waitFor();
    const codeField = page.getByLabel("Security code from the parent's stub");
    const wrong = code === 'AAAA' ? 'CCCC' : 'AAAA';
    await codeField.fill(wrong.toLowerCase());
    await page.getByRole('button', { name: 'Check out', exact: true }).click();
    await page.getByText(`No open check-in with security code ${wrong} in this session`).waitFor();
    await checkScreen(page, 'kiosk-checkout-unknown');
    await codeField.fill(code);
    await page.getByRole('button', { name: 'Check out', exact: true }).click();
    await page.getByText('Amani Okello, Baraka Okello may go home.').waitFor();
    await checkScreen(page, 'kiosk-checked-out');
    const after = (await api(ctx.app, t.admin.token).get(`/api/attendance/checkins?sessionId=${session.id}`)).json();
    expect(after.data.map((k: { status: string }) => k.status)).toEqual(['CheckedOut', 'CheckedOut']);
    await page.getByRole('button', { name: 'Next code' }).click();
    await codeField.fill(code);
    await page.getByRole('button', { name: 'Check out', exact: true }).click();
    await page.getByText(new RegExp(`^Security code ${code} was already checked out at \\d\\d:\\d\\d$`)).waitFor();
    await page.context().close();
  });
});
