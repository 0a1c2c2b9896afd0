import { describe, expect, it } from 'vitest';
import { createTenant } from '../../src/provisioning/create-tenant.js';
import { api, expectError, setupTestApp } from '../helpers/app.js';
import { newTenant, newUser, PASSWORD } from '../helpers/factories.js';
import { newBatch, newFund, newGift } from '../helpers/finance.factories.js';

const ctx = setupTestApp();

describe('GET/PUT /api/tenants/current', () => {
  it('any token reads the settings; the defaults are UTC and USD', async () => {
    const t = await newTenant(ctx);
    const member = await newUser(ctx, t, 'Member');
    const res = await api(ctx.app, member.token).get('/api/tenants/current');
    expect(res.statusCode).toBe(200);
    expect(res.json()).toEqual({
      slug: t.slug, name: `Church ${t.slug}`, timeZone: 'UTC', currency: 'USD', allowRegistration: true,
      address: null, taxNumber: null, statementClosing: null, paperSize: 'A4', replyTo: null,
    });
  });

  it('giving settings: address, tax number, statement closing, paper size and reply-to are set, read back, trimmed and cleared', async () => {
    const t = await newTenant(ctx);
    const admin = api(ctx.app, t.admin.token);
    const settings = {
      address: '12 Church Road\nKampala, Uganda', taxNumber: 'UG-501-77', statementClosing: 'No goods or services were provided in exchange for these contributions.',
      paperSize: 'Letter', replyTo: 'office@grace.example.org',
    };
    const res = await admin.put('/api/tenants/current', settings);
    expect(res.statusCode, res.body).toBe(200);
    expect(res.json()).toMatchObject(settings);
    const member = await newUser(ctx, t, 'Member');
    expect((await api(ctx.app, member.token).get('/api/tenants/current')).json()).toMatchObject(settings);
    // Only what is sent changes; blank text and null clear; text is trimmed.
    expect((await admin.put('/api/tenants/current', { taxNumber: '  UG-9  ', address: '   ', replyTo: null })).json()).toMatchObject({
      ...settings, taxNumber: 'UG-9', address: null, replyTo: null,
    });
    expect((await admin.put('/api/tenants/current', { statementClosing: null })).json()).toMatchObject({ statementClosing: null, paperSize: 'Letter' });
  });

  it('refuses bad giving settings with 400 naming the field, and changes nothing', async () => {
    const t = await newTenant(ctx);
    const admin = api(ctx.app, t.admin.token);
    expect(expectError(await admin.put('/api/tenants/current', { paperSize: 'A5' }), 400)).toMatch(/paperSize/);
    expect(expectError(await admin.put('/api/tenants/current', { replyTo: 'not an email' }), 400)).toMatch(/replyTo/);
    expect(expectError(await admin.put('/api/tenants/current', { address: 'x'.repeat(501) }), 400)).toMatch(/address/);
    expect(expectError(await admin.put('/api/tenants/current', { taxNumber: 'x'.repeat(101) }), 400)).toMatch(/taxNumber/);
    expect(expectError(await admin.put('/api/tenants/current', { statementClosing: 'x'.repeat(501) }), 400)).toMatch(/statementClosing/);
    const leader = await newUser(ctx, t, 'Leader');
    expectError(await api(ctx.app, leader.token).put('/api/tenants/current', { paperSize: 'Letter' }), 403);
    expect((await admin.get('/api/tenants/current')).json()).toMatchObject({ paperSize: 'A4', replyTo: null, address: null, taxNumber: null, statementClosing: null });
  });

  it('roles:write changes them (currency upper-cased); the change is read back', async () => {
    const t = await newTenant(ctx);
    const res = await api(ctx.app, t.admin.token).put('/api/tenants/current', { timeZone: 'Africa/Kampala', currency: 'ugx', name: 'Grace Kampala' });
    expect(res.statusCode, res.body).toBe(200);
    expect(res.json()).toMatchObject({ timeZone: 'Africa/Kampala', currency: 'UGX', name: 'Grace Kampala' });
    expect((await api(ctx.app, t.admin.token).get('/api/tenants/current')).json()).toMatchObject({ timeZone: 'Africa/Kampala', currency: 'UGX' });
  });

  it('refuses unknown zones and currencies with 400 and changes nothing', async () => {
    const t = await newTenant(ctx);
    const admin = api(ctx.app, t.admin.token);
    expect(expectError(await admin.put('/api/tenants/current', { timeZone: 'Mars/Olympus' }), 400)).toMatch(/timeZone/);
    expect(expectError(await admin.put('/api/tenants/current', { currency: 'XYZ' }), 400)).toMatch(/currency/);
    expectError(await admin.put('/api/tenants/current', { currency: 'US' }), 400);
    // Unknown fields are stripped (api-contract §1): the slug is not a setting.
    expect((await admin.put('/api/tenants/current', { slug: 'other' })).json()).toMatchObject({ slug: t.slug });
    expect((await admin.get('/api/tenants/current')).json()).toMatchObject({ timeZone: 'UTC', currency: 'USD' });
  });

  it('refuses a new currency (409 naming the counts) while amounts are recorded, never re-reading them', async () => {
    const t = await newTenant(ctx);
    const admin = api(ctx.app, t.admin.token);
    const fund = await newFund(ctx, t.admin.token);
    await newBatch(ctx, t.admin.token, { controlAmount: 0 });
    // No amount yet (an empty control amount is none): the currency may change, and back.
    expect((await admin.put('/api/tenants/current', { currency: 'UGX' })).json()).toMatchObject({ currency: 'UGX' });
    expect((await admin.put('/api/tenants/current', { currency: 'USD' })).json()).toMatchObject({ currency: 'USD' });
    const gift = await newGift(ctx, t.admin.token, { fundId: fund.id, amount: 45050 });
    await newGift(ctx, t.admin.token, { fundId: fund.id, amount: 100 });
    await newBatch(ctx, t.admin.token, { controlAmount: 500 });
    const message = expectError(await admin.put('/api/tenants/current', { currency: 'ugx', name: 'Renamed' }), 409);
    expect(message).toContain('USD');
    expect(message).toContain('2 gifts');
    expect(message).toContain('1 batch with a control amount');
    expect((await admin.get('/api/tenants/current')).json()).toMatchObject({ currency: 'USD', name: `Church ${t.slug}` });
    expect((await admin.get(`/api/finance/contributions/${gift.id}`)).json()).toMatchObject({ amount: 45050, currency: 'USD' });
    // The same currency (any case) and other fields still change.
    expect((await admin.put('/api/tenants/current', { currency: 'usd', name: 'Renamed' })).json()).toMatchObject({ currency: 'USD', name: 'Renamed' });
  });

  it('needs a token to read and roles:write to change; a tenant only ever sees its own', async () => {
    const a = await newTenant(ctx);
    const b = await newTenant(ctx);
    expectError(await api(ctx.app).get('/api/tenants/current'), 401);
    const leader = await newUser(ctx, a, 'Leader');
    expectError(await api(ctx.app, leader.token).put('/api/tenants/current', { currency: 'EUR' }), 403);
    await api(ctx.app, b.admin.token).put('/api/tenants/current', { currency: 'EUR' });
    expect((await api(ctx.app, a.admin.token).get('/api/tenants/current')).json()).toMatchObject({ slug: a.slug, currency: 'USD' });
  });

  it('a tenant created with a time zone and currency keeps them; bad ones are refused before writing', async () => {
    const slug = `tz-${Date.now().toString(36)}`;
    const { tenant } = await createTenant(ctx.db, { slug, name: 'Auckland', adminUsername: 'admin', adminPassword: PASSWORD, timeZone: 'Pacific/Auckland', currency: 'nzd' });
    expect(tenant).toMatchObject({ timeZone: 'Pacific/Auckland', currency: 'NZD' });
    await expect(createTenant(ctx.db, { slug: `${slug}-x`, name: 'X', adminUsername: 'admin', adminPassword: PASSWORD, timeZone: 'Nowhere/City' })).rejects.toThrow(/time zone/);
    await expect(createTenant(ctx.db, { slug: `${slug}-y`, name: 'Y', adminUsername: 'admin', adminPassword: PASSWORD, currency: 'ABCD' })).rejects.toThrow(/currency/);
  });
});
