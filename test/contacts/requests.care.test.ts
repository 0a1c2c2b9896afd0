import { beforeAll, describe, expect, it } from 'vitest';
import { api, expectError, setupTestApp } from '../helpers/app.js';
import { newTenant, newUser, type TestTenant, type TestUser } from '../helpers/factories.js';
import { newPerson } from '../helpers/contacts.factories.js';

const ctx = setupTestApp();

describe('Counseling and Welfare requests need care:read (modules-contract §0)', () => {
  let t: TestTenant;
  let leader: TestUser;
  let carer: TestUser;
  let contactId: number;
  const ids: Record<string, number> = {};

  beforeAll(async () => {
    t = await newTenant(ctx);
    leader = await newUser(ctx, t, 'Leader');
    carer = await newUser(ctx, t, ['contacts:read', 'contacts:write', 'care:read']);
    contactId = (await newPerson(ctx, t, 'Ruth', 'Kamau')).id;
    for (const type of ['Prayer', 'Counseling', 'Welfare']) {
      const res = await api(ctx.app, t.admin.token).post('/api/crm/requests', { contactId, type, description: `${type} need` });
      expect(res.statusCode, res.body).toBe(201);
      ids[type] = res.json().id;
    }
  });

  it('the list leaves them out without care:read, totals included; admins and carers see them', async () => {
    const types = async (token: string) => {
      const body = (await api(ctx.app, token).get(`/api/crm/requests?contactId=${contactId}`)).json();
      return { types: body.data.map((r: { type: string }) => r.type).sort(), total: body.total };
    };
    expect(await types(leader.token)).toEqual({ types: ['Prayer'], total: 1 });
    expect(await types(carer.token)).toEqual({ types: ['Counseling', 'Prayer', 'Welfare'], total: 3 });
    expect(await types(t.admin.token)).toEqual({ types: ['Counseling', 'Prayer', 'Welfare'], total: 3 });
  });

  it("the contact's single read leaves them out of its requests without care:read", async () => {
    const requestTypes = async (token: string) =>
      (await api(ctx.app, token).get(`/api/crm/contacts/${contactId}`)).json().requests.map((r: { type: string }) => r.type).sort();
    expect(await requestTypes(leader.token)).toEqual(['Prayer']);
    expect(await requestTypes(carer.token)).toEqual(['Counseling', 'Prayer', 'Welfare']);
  });

  it('changing or deleting one without care:read is 404 as if it did not exist; retyping a readable one to Counseling is 403', async () => {
    const l = api(ctx.app, leader.token);
    expect(expectError(await l.put(`/api/crm/requests/${ids.Counseling}`, { status: 'Resolved' }), 404)).toBe(`Request with id ${ids.Counseling} not found`);
    expectError(await l.delete(`/api/crm/requests/${ids.Welfare}`), 404);
    expectError(await l.put(`/api/crm/requests/${ids.Prayer}`, { type: 'Counseling' }), 403);
    const res = await api(ctx.app, carer.token).put(`/api/crm/requests/${ids.Counseling}`, { status: 'InProgress' });
    expect(res.statusCode, res.body).toBe(200);
    expect(res.json()).toMatchObject({ type: 'Counseling', status: 'InProgress' });
  });
});
