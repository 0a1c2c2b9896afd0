import { describe, expect, it } from 'vitest';
import { api, expectError, setupTestApp } from '../helpers/app.js';
import { newTenant, newUser } from '../helpers/factories.js';
import { newCompany, newPerson } from '../helpers/contacts.factories.js';

const ctx = setupTestApp();

const person = (extra: Record<string, unknown> = {}) => ({ firstName: 'Ann', lastName: 'Lee', ...extra });
const BAD_IDS = ['abc', '1.5', '-1', '0', '99999999999999999999'];

describe('POST /api/crm/contacts validation', () => {
  const cases: [string, Record<string, unknown>, RegExp][] = [
    ['missing category', { person: person() }, /body\/category is required/],
    ['unknown category', { category: 'Robot', person: person() }, /body\/category must be one of/],
    ['unknown status', { category: 'Person', status: 'Asleep', person: person() }, /body\/status must be one of/],
    ['person missing', { category: 'Person' }, /body\/person is required/],
    ['company missing', { category: 'Company' }, /body\/company is required/],
    ['company name missing', { category: 'Company', company: { industry: 'x' } }, /body\/company\/name is required/],
    ['person on a company', { category: 'Company', company: { name: 'X' }, person: person() }, /body\/person is only allowed/],
    ['company on a person', { category: 'Person', person: person(), company: { name: 'X' } }, /body\/company is only allowed/],
    ['firstName missing', { category: 'Person', person: { lastName: 'Lee' } }, /body\/person\/firstName is required/],
    ['lastName missing', { category: 'Person', person: { firstName: 'Ann' } }, /body\/person\/lastName is required/],
    ['empty firstName', { category: 'Person', person: person({ firstName: '   ' }) }, /body\/person\/firstName/],
    ['firstName too long', { category: 'Person', person: person({ firstName: 'x'.repeat(201) }) }, /body\/person\/firstName/],
    ['firstName wrong type', { category: 'Person', person: person({ firstName: { a: 1 } }) }, /body\/person\/firstName/],
    ['bad gender', { category: 'Person', person: person({ gender: 'Other' }) }, /body\/person\/gender must be one of: Male, Female/],
    ['bad civilStatus', { category: 'Person', person: person({ civilStatus: 'Complicated' }) }, /body\/person\/civilStatus must be one of/],
    ['bad dateOfBirth', { category: 'Person', person: person({ dateOfBirth: '1990-02-30' }) }, /body\/person\/dateOfBirth must be a date/],
    ['timestamp dateOfBirth', { category: 'Person', person: person({ dateOfBirth: '1990-02-03T00:00:00Z' }) }, /body\/person\/dateOfBirth/],
    ['bad email', { category: 'Person', person: person(), emails: [{ value: 'not-an-email' }] }, /body\/emails\/0\/value must be a valid email/],
    ['email too long', { category: 'Person', person: person(), emails: [{ value: `${'a'.repeat(250)}@x.org` }] }, /body\/emails\/0\/value/],
    ['two primary emails', { category: 'Person', person: person(), emails: [{ value: 'a@x.org', isPrimary: true }, { value: 'b@x.org', isPrimary: true }] }, /body\/emails may have at most one isPrimary/],
    ['two primary phones', { category: 'Person', person: person(), phones: [{ value: '1', isPrimary: true }, { value: '2', isPrimary: true }] }, /body\/phones may have at most one isPrimary/],
    ['phone without digits', { category: 'Person', person: person(), phones: [{ value: 'call me' }] }, /body\/phones\/0\/value/],
    ['phone too long', { category: 'Person', person: person(), phones: [{ value: '1'.repeat(51) }] }, /body\/phones\/0\/value/],
    ['too many emails', { category: 'Person', person: person(), emails: Array.from({ length: 21 }, (_, i) => ({ value: `e${i}@x.org` })) }, /body\/emails/],
    ['emails not an array', { category: 'Person', person: person(), emails: 'a@x.org' }, /body\/emails/],
    ['bad occasion type', { category: 'Person', person: person(), occasions: [{ type: 'Party', date: '2020-01-01' }] }, /body\/occasions\/0\/type must be one of/],
    ['occasion without date', { category: 'Person', person: person(), occasions: [{ type: 'Birthday' }] }, /body\/occasions\/0\/date is required/],
    ['bad identification type', { category: 'Person', person: person(), identifications: [{ type: 'Library', value: '1' }] }, /body\/identifications\/0\/type must be one of/],
    ['identification without value', { category: 'Person', person: person(), identifications: [{ type: 'Passport' }] }, /body\/identifications\/0\/value is required/],
    ['bad expiresOn', { category: 'Person', person: person(), identifications: [{ type: 'Passport', value: 'X', expiresOn: '0000-01-01' }] }, /body\/identifications\/0\/expiresOn/],
    ['details too long', { category: 'Person', person: person(), occasions: [{ type: 'Other', date: '2020-01-01', details: 'x'.repeat(5001) }] }, /body\/occasions\/0\/details/],
    ['address field too long', { category: 'Person', person: person(), addresses: [{ city: 'x'.repeat(201) }] }, /body\/addresses\/0\/city/],
  ];
  it.each(cases)('%s → 400 naming the field', async (_name, body, message) => {
    const t = await newTenant(ctx);
    const res = await api(ctx.app, t.admin.token).post('/api/crm/contacts', body);
    expect(expectError(res, 400)).toMatch(message);
  });

  it('rejects malformed JSON, NUL characters and an empty body', async () => {
    const t = await newTenant(ctx);
    const a = api(ctx.app, t.admin.token);
    expectError(await a.post('/api/crm/contacts', '{"category":', { 'content-type': 'application/json' }), 400);
    expectError(await a.post('/api/crm/contacts', { category: 'Person', person: person({ firstName: 'A\u0000B' }) }), 400);
    expectError(await a.post('/api/crm/contacts'), 400);
  });
});

describe('PUT /api/crm/contacts/:id validation', () => {
  it('applies the create rules and refuses a category change', async () => {
    const t = await newTenant(ctx);
    const a = api(ctx.app, t.admin.token);
    const c = await newPerson(ctx, t, 'Ann', 'Lee');
    const firm = await newCompany(ctx, t, 'Firm');
    expect(expectError(await a.put(`/api/crm/contacts/${c.id}`, { status: 'Gone' }), 400)).toMatch(/body\/status must be one of/);
    expect(expectError(await a.put(`/api/crm/contacts/${c.id}`, { person: { firstName: '' } }), 400)).toMatch(/body\/person\/firstName/);
    expect(expectError(await a.put(`/api/crm/contacts/${c.id}`, { person: { lastName: null } }), 400)).toMatch(/body\/person\/lastName/);
    expect(expectError(await a.put(`/api/crm/contacts/${c.id}`, { emails: [{ value: 'bad' }] }), 400)).toMatch(/body\/emails\/0\/value/);
    expect(expectError(await a.put(`/api/crm/contacts/${c.id}`, { category: 'Company' }), 400)).toMatch(/body\/category cannot be changed/);
    expect(expectError(await a.put(`/api/crm/contacts/${c.id}`, { company: { name: 'X' } }), 400)).toMatch(/body\/company is only allowed/);
    expect(expectError(await a.put(`/api/crm/contacts/${firm.id}`, { person: { firstName: 'X' } }), 400)).toMatch(/body\/person is only allowed/);
    expect(expectError(await a.put(`/api/crm/contacts/${firm.id}`, { company: { name: '' } }), 400)).toMatch(/body\/company\/name/);
    // Nothing was written by the refused updates.
    expect((await a.get(`/api/crm/contacts/${c.id}`)).json()).toMatchObject({ status: 'Active', person: { firstName: 'Ann', lastName: 'Lee' }, emails: [] });
  });
});

describe('ids, filters and missing contacts', () => {
  it.each(BAD_IDS)('path id %s → 400 on read, update and delete', async (id) => {
    const t = await newTenant(ctx);
    const a = api(ctx.app, t.admin.token);
    expect(expectError(await a.get(`/api/crm/contacts/${id}`), 400)).toMatch(/params\/id/);
    expect(expectError(await a.put(`/api/crm/contacts/${id}`, { status: 'Active' }), 400)).toMatch(/params\/id/);
    expect(expectError(await a.delete(`/api/crm/contacts/${id}`), 400)).toMatch(/params\/id/);
  });

  it('404 names the missing contact', async () => {
    const t = await newTenant(ctx);
    const a = api(ctx.app, t.admin.token);
    expect(expectError(await a.get('/api/crm/contacts/424242'), 404)).toBe('Contact with id 424242 not found');
    expect(expectError(await a.put('/api/crm/contacts/424242', { status: 'Active' }), 404)).toBe('Contact with id 424242 not found');
    expect(expectError(await a.delete('/api/crm/contacts/424242'), 404)).toBe('Contact with id 424242 not found');
  });

  it('refuses to delete a contact linked to a user (409) and keeps it', async () => {
    const t = await newTenant(ctx);
    const u = await newUser(ctx, t, ['contacts:read']);
    const a = api(ctx.app, t.admin.token);
    expect(expectError(await a.delete(`/api/crm/contacts/${u.contactId}`), 409)).toBe(`Contact ${u.contactId} is linked to user ${u.id}`);
    expect((await a.get(`/api/crm/contacts/${u.contactId}`)).statusCode).toBe(200);
  });

  it.each([
    ['category=Robot', /querystring\/category/],
    ['status=Asleep', /querystring\/status/],
    ['page=0', /querystring\/page/],
    ['limit=0', /querystring\/limit/],
    ['limit=-5', /querystring\/limit/],
    ['page=1.5', /querystring\/page/],
    ['limit=abc', /querystring\/limit/],
    [`q=${'x'.repeat(201)}`, /querystring\/q/],
  ])('list filter %s → 400', async (query, message) => {
    const t = await newTenant(ctx);
    const a = api(ctx.app, t.admin.token);
    expect(expectError(await a.get(`/api/crm/contacts?${query}`), 400)).toMatch(message);
    expect(expectError(await a.get(`/api/crm/people?${query.startsWith('category') ? 'status=Asleep' : query}`), 400)).toMatch(/querystring/);
  });
});
