import { beforeAll, describe, expect, it } from 'vitest';
import { api, setupTestApp } from '../helpers/app.js';
import { newTenant, newUser, type TestTenant } from '../helpers/factories.js';
import { newGroup } from '../helpers/groups.factories.js';
import { company, event, person, request, task } from './fixtures.js';

const ctx = setupTestApp();

describe('GET /api/search', () => {
  let t: TestTenant;
  const id: Record<string, number> = {};
  const search = (query: string, token = t.admin.token) => api(ctx.app, token).get(`/api/search?${query}`);

  beforeAll(async () => {
    t = await newTenant(ctx);
    id.jose = await person(ctx, t, 'José', 'Álvarez', { emails: [{ value: 'jose.alvarez@example.org' }], phones: [{ value: '+256 (700) 123-456' }] });
    id.josephine = await person(ctx, t, 'JOSEPHINE', 'Nakato');
    id.ann = await person(ctx, t, 'Ann', 'Brown', { emails: [{ value: 'ann@mail.example.org' }], phones: [{ value: '0772 999 888' }] });
    id.firm = await company(ctx, t, 'Josefina Traders');
    id.percent = await person(ctx, t, 'Percy', '100% Sure_Thing');
    id.group = (await newGroup(ctx, t, { name: 'São José Fellowship' })).id;
    id.event = await event(ctx, t, 'Noche de Oración', '2026-05-01');
    id.eventJose = await event(ctx, t, 'Visit to José', '2026-06-01', id.group);
    id.prayer = await request(ctx, t, id.ann, 'Prayer', 'Pray for José and his family');
    id.user = (await newUser(ctx, t, ['contacts:read'], { username: 'jose.admin', email: 'office@example.org', lastName: 'Office' })).id;
    id.task = await task(ctx, t, { title: 'Call José about baptism', createdBy: t.admin.id });
  });

  it('finds every type in one answer, accent- and case-insensitively ("jose" finds "José")', async () => {
    const res = await search('q=jose');
    expect(res.statusCode, res.body).toBe(200);
    const body = res.json();
    expect(body.q).toBe('jose');
    expect(Object.keys(body.results).sort()).toEqual(['contacts', 'events', 'groups', 'households', 'requests', 'tasks', 'users']);
    expect(body.results.contacts.map((h: { id: number }) => h.id).sort()).toEqual([id.jose, id.firm, id.josephine].sort());
    expect(body.totals.contacts).toBe(3);
    expect(body.results.contacts.find((h: { id: number }) => h.id === id.jose)).toEqual({ id: id.jose, title: 'José Álvarez', subtitle: 'jose.alvarez@example.org', matchedOn: 'name' });
    expect(body.results.groups).toEqual([{ id: id.group, title: 'São José Fellowship', subtitle: 'Fellowship', matchedOn: 'name' }]);
    expect(body.results.events).toEqual([{ id: id.eventJose, title: 'Visit to José', subtitle: '2026-06-01 · São José Fellowship', matchedOn: 'name' }]);
    expect(body.results.requests).toEqual([{ id: id.prayer, title: 'Prayer request: Ann Brown', subtitle: 'Pray for José and his family', matchedOn: 'description' }]);
    expect(body.results.users).toEqual([{ id: id.user, title: 'jose.admin', subtitle: 'office@example.org', matchedOn: 'username' }]);
    expect(body.results.tasks).toEqual([expect.objectContaining({ id: id.task, title: 'Call José about baptism', matchedOn: 'title' })]);
    expect(body.totals).toEqual({ contacts: 3, groups: 1, events: 1, requests: 1, tasks: 1, users: 1, households: 0 });
  });

  it('folds accents and case on both sides: "JOSÉ", "ÁLVAREZ", "oracion", "SAO"', async () => {
    expect((await search(`q=${encodeURIComponent('JOSÉ')}&types=contacts`)).json().totals.contacts).toBe(3);
    expect((await search(`q=${encodeURIComponent('ÁLVAREZ')}&types=contacts`)).json().results.contacts.map((h: { id: number }) => h.id)).toEqual([id.jose]);
    expect((await search('q=oracion&types=events')).json().results.events.map((h: { id: number }) => h.id)).toEqual([id.event]);
    expect((await search('q=SAO&types=groups')).json().results.groups.map((h: { id: number }) => h.id)).toEqual([id.group]);
  });

  it('a phone-shaped q matches phone digits whatever the formatting', async () => {
    for (const q of ['700123456', '700-123', '(700) 123', '+256700123456']) {
      const body = (await search(`q=${encodeURIComponent(q)}&types=contacts`)).json();
      expect(body.results.contacts, q).toEqual([{ id: id.jose, title: 'José Álvarez', subtitle: 'jose.alvarez@example.org', matchedOn: 'phone' }]);
    }
    const ann = (await search('q=999888&types=contacts')).json();
    expect(ann.results.contacts.map((h: { id: number }) => h.id)).toEqual([id.ann]);
  });

  it('matchedOn names the email when only the email matches', async () => {
    const body = (await search('q=mail.example&types=contacts,users')).json();
    expect(body.results.contacts).toEqual([{ id: id.ann, title: 'Ann Brown', subtitle: 'ann@mail.example.org', matchedOn: 'email' }]);
    const office = (await search('q=office@&types=users')).json();
    expect(office.results.users).toEqual([{ id: id.user, title: 'jose.admin', subtitle: 'office@example.org', matchedOn: 'email' }]);
  });

  it('limit applies per type; totals count every match', async () => {
    const body = (await search('q=jose&limit=1')).json();
    expect(body.results.contacts).toHaveLength(1);
    expect(body.totals.contacts).toBe(3);
    expect(body.results.groups).toHaveLength(1);
    const two = (await search('q=jose&limit=2&types=contacts')).json();
    expect(two.results.contacts).toHaveLength(2);
    expect(two.totals.contacts).toBe(3);
  });

  it('types restricts the answer to the named types, in the contract order', async () => {
    const body = (await search('q=jose&types=users,groups')).json();
    expect(Object.keys(body.results)).toEqual(['groups', 'users']);
    expect(Object.keys(body.totals)).toEqual(['groups', 'users']);
  });

  it('no match: empty arrays and zero totals for every type', async () => {
    const body = (await search('q=zzqqxx')).json();
    for (const type of ['contacts', 'groups', 'events', 'requests', 'tasks', 'users', 'households']) {
      expect(body.results[type]).toEqual([]);
      expect(body.totals[type]).toBe(0);
    }
  });

  it('%, _ and \\ in q match literally', async () => {
    expect((await search(`q=${encodeURIComponent('100%')}&types=contacts`)).json().results.contacts.map((h: { id: number }) => h.id)).toEqual([id.percent]);
    expect((await search(`q=${encodeURIComponent('e_t')}&types=contacts`)).json().results.contacts.map((h: { id: number }) => h.id)).toEqual([id.percent]);
    expect((await search(`q=${encodeURIComponent('%%')}&types=contacts`)).json().totals.contacts).toBe(0);
    expect((await search(`q=${encodeURIComponent('__')}&types=contacts`)).json().totals.contacts).toBe(0);
    expect((await search(`q=${encodeURIComponent('\\\\')}&types=contacts`)).json().totals.contacts).toBe(0);
  });

  it('q is trimmed', async () => {
    const body = (await search(`q=${encodeURIComponent('  Ann  ')}&types=contacts`)).json();
    expect(body.q).toBe('Ann');
    expect(body.results.contacts.map((h: { id: number }) => h.id)).toEqual([id.ann]);
  });

  it('a contact found after a change of name (the search columns follow writes)', async () => {
    const res = await api(ctx.app, t.admin.token).put(`/api/crm/contacts/${id.ann}`, { person: { firstName: 'Anneliese', lastName: 'Brøwn' } });
    expect(res.statusCode, res.body).toBe(200);
    expect((await search('q=anneliese&types=contacts')).json().results.contacts.map((h: { id: number }) => h.id)).toEqual([id.ann]);
  });
});
