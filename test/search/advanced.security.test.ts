import { beforeAll, describe, expect, it } from 'vitest';
import { api, expectError, setupTestApp } from '../helpers/app.js';
import { newTenant, newUser, type TestTenant } from '../helpers/factories.js';
import { addMembership, newLeaderOf, newMemberOf, newTree } from '../helpers/groups.factories.js';
import { ids, person } from './fixtures.js';

const ctx = setupTestApp();

describe('POST /api/search/contacts security', () => {
  let t: TestTenant;
  let tree: Awaited<ReturnType<typeof newTree>>;
  const id: Record<string, number> = {};
  const post = (token: string | undefined, body: unknown) => api(ctx.app, token).post('/api/search/contacts', body as object);
  const cond = (field: string, operator: string, value: unknown) => ({ conditions: [{ field, operator, value }] });

  beforeAll(async () => {
    t = await newTenant(ctx);
    tree = await newTree(ctx, t);
    id.publicMember = await person(ctx, t, 'Pam', 'Public');
    id.privateLeader = await person(ctx, t, 'Pete', 'Private');
    await addMembership(ctx, t, tree.fellowshipA1, id.publicMember, 'Leader');
    await addMembership(ctx, t, tree.fellowshipB1, id.privateLeader, 'Leader');
  });

  it('401 without a token, 403 without contacts:read', async () => {
    expectError(await post(undefined, cond('firstName', 'eq', 'Pam')), 401);
    const member = await newMemberOf(ctx, t, tree.fellowshipA1);
    expect(expectError(await post(member.token, cond('firstName', 'eq', 'Pam')), 403)).toContain('contacts:read');
  });

  it('giving conditions need finance:read (403), whatever the match', async () => {
    const leader = await newLeaderOf(ctx, t, tree.zoneA); // contacts:read, no finance:read
    for (const field of ['gaveWithinDays', 'notGaveWithinDays']) {
      expect(expectError(await post(leader.token, cond(field, 'lt', 30)), 403)).toContain('finance:read');
      const any = { match: 'any', conditions: [{ field: 'firstName', operator: 'eq', value: 'Pam' }, { field, operator: 'lt', value: 30 }] };
      expect(expectError(await post(leader.token, any), 403)).toContain('finance:read');
    }
    const treasurer = await newUser(ctx, t, ['contacts:read', 'finance:read']);
    expect((await post(treasurer.token, cond('gaveWithinDays', 'lt', 30))).statusCode).toBe(200);
  });

  it('attendance conditions need attendance:read (403): a search never reveals what the caller may not read', async () => {
    const treasurer = await newUser(ctx, t, ['contacts:read', 'finance:read']);
    for (const field of ['attendedWithinDays', 'notAttendedWithinDays', 'firstVisitWithinDays']) {
      expect(expectError(await post(treasurer.token, cond(field, 'lt', 30)), 403)).toContain('attendance:read');
    }
    const leader = await newLeaderOf(ctx, t, tree.zoneA); // Leader: attendance:read
    expect((await post(leader.token, cond('attendedWithinDays', 'lt', 30))).statusCode).toBe(200);
  });

  it('membership conditions need groups:read (403): memberships are read with it everywhere else', async () => {
    const reader = await newUser(ctx, t, ['contacts:read']);
    for (const [field, value] of [['memberOf', tree.church.id], ['notMemberOf', tree.church.id], ['role', 'Leader']] as const) {
      expect(expectError(await post(reader.token, cond(field, 'eq', value)), 403)).toContain('groups:read');
    }
    const any = { match: 'any', conditions: [{ field: 'firstName', operator: 'eq', value: 'Pam' }, { field: 'role', operator: 'eq', value: 'Leader' }] };
    expect(expectError(await post(reader.token, any), 403)).toContain('groups:read');
  });

  it('memberOf a group the caller cannot see is 404 (as a missing one); a visible one is fine', async () => {
    const zoneLeader = await newLeaderOf(ctx, t, tree.zoneA);
    expect(expectError(await post(zoneLeader.token, cond('memberOf', 'eq', tree.zoneB.id)), 404)).toBe(`Group with id ${tree.zoneB.id} not found`);
    expect(expectError(await post(zoneLeader.token, cond('notMemberOf', 'eq', tree.fellowshipB1.id)), 404)).toContain('not found');
    expect((await post(t.admin.token, cond('memberOf', 'eq', tree.zoneB.id))).json().total).toBe(1);
  });

  it('memberships in groups the caller cannot see never count (memberOf a subtree, role)', async () => {
    const reader = await newUser(ctx, t, ['contacts:read', 'groups:read']); // no memberships: sees the public groups only
    const viaChurch = (await post(reader.token, cond('memberOf', 'eq', tree.church.id))).json();
    expect(ids(viaChurch)).toContain(id.publicMember);
    expect(ids(viaChurch)).not.toContain(id.privateLeader);
    expect(viaChurch.total).toBe(viaChurch.data.length);
    const adminView = (await post(t.admin.token, cond('memberOf', 'eq', tree.church.id))).json();
    expect(adminView.total).toBe(viaChurch.total + 1);
    const leaders = ids((await post(reader.token, cond('role', 'eq', 'Leader'))).json());
    expect(leaders).toContain(id.publicMember);
    expect(leaders).not.toContain(id.privateLeader);
    // The admin sees both.
    expect(ids((await post(t.admin.token, cond('role', 'eq', 'Leader'))).json())).toEqual(expect.arrayContaining([id.publicMember, id.privateLeader]));
    // A member of Fellowship B1 sees that group, and so its leader.
    const insider = await newUser(ctx, t, ['contacts:read', 'groups:read']);
    await addMembership(ctx, t, tree.fellowshipB1, insider.contactId, 'Member');
    expect(ids((await post(insider.token, cond('role', 'eq', 'Leader'))).json())).toEqual(expect.arrayContaining([id.publicMember, id.privateLeader]));
  });

  it("another tenant's contacts are never found; its group ids are 404", async () => {
    const other = await newTenant(ctx);
    await person(ctx, other, 'Pam', 'Elsewhere');
    const found = (await post(t.admin.token, cond('firstName', 'eq', 'pam'))).json();
    expect(ids(found)).toEqual([id.publicMember]);
    const theirTree = await newTree(ctx, other);
    expectError(await post(t.admin.token, cond('memberOf', 'eq', theirTree.church.id)), 404);
    const theirs = (await post(other.admin.token, cond('createdWithinDays', 'lt', 5))).json();
    expect(theirs.total).toBe(2); // their admin and Pam Elsewhere
  });
});
