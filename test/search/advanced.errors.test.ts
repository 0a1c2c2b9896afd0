import { beforeAll, describe, expect, it } from 'vitest';
import { api, expectError, setupTestApp } from '../helpers/app.js';
import { newTenant, type TestTenant } from '../helpers/factories.js';
import { newGroup } from '../helpers/groups.factories.js';

const ctx = setupTestApp();

describe('POST /api/search/contacts: bad input', () => {
  let t: TestTenant;
  const post = (body: unknown) => api(ctx.app, t.admin.token).post('/api/search/contacts', body as object);
  const one = (field: string, operator: string, value?: unknown) => post({ conditions: [{ field, operator, ...(value === undefined ? {} : { value }) }] });

  beforeAll(async () => {
    t = await newTenant(ctx);
  });

  it('an unknown field is 400 naming it and where it is', async () => {
    const message = expectError(await post({ conditions: [{ field: 'firstName', operator: 'eq', value: 'a' }, { field: 'shoeSize', operator: 'eq', value: 42 }] }), 400);
    expect(message).toContain('shoeSize');
    expect(message).toContain('body/conditions/1/field');
  });

  it('an operator the field does not take is 400 naming it', async () => {
    for (const [field, operator] of [['firstName', 'gt'], ['age', 'contains'], ['birthdayInDays', 'eq'], ['memberOf', 'in'], ['gaveWithinDays', 'gt'], ['city', 'like'], ['role', 'neq']]) {
      const message = expectError(await one(field, operator, 1), 400);
      expect(message, `${field} ${operator}`).toContain(`'${operator}'`);
      expect(message).toContain('body/conditions/0/operator');
    }
  });

  it('a value of the wrong type for its operator is 400 naming the value', async () => {
    const bad: [string, string, unknown][] = [
      ['firstName', 'eq', 42],
      ['firstName', 'eq', ''],
      ['firstName', 'eq', 'x'.repeat(201)],
      ['firstName', 'in', 'Ann'],
      ['firstName', 'in', []],
      ['firstName', 'in', ['Ann', 3]],
      ['firstName', 'contains', ['a']],
      ['firstName', 'isEmpty', 'yes'],
      ['gender', 'eq', 'Other'],
      ['gender', 'in', ['Male', 'Robot']],
      ['status', 'eq', 'Gone'],
      ['category', 'neq', 'Organisation'],
      ['civilStatus', 'eq', 'Complicated'],
      ['age', 'eq', '30'],
      ['age', 'gt', -1],
      ['age', 'lt', 1.5],
      ['age', 'between', [30]],
      ['age', 'between', [50, 30]],
      ['age', 'between', 30],
      ['dateOfBirth', 'eq', '2020-02-30'],
      ['dateOfBirth', 'gt', '01/02/2020'],
      ['dateOfBirth', 'between', ['2020-01-01', 5]],
      ['dateOfBirth', 'between', ['2020-01-02', '2020-01-01']],
      ['birthdayInDays', 'lt', 0],
      ['birthdayInDays', 'lt', 400],
      ['memberOf', 'eq', 'abc'],
      ['notMemberOf', 'eq', 0],
      ['role', 'eq', 'Owner'],
      ['attendedWithinDays', 'lt', 0],
      ['notAttendedWithinDays', 'lt', '7'],
      ['firstVisitWithinDays', 'lt', null],
      ['gaveWithinDays', 'lt', 2.5],
      ['notGaveWithinDays', 'lt', 100000],
      ['createdWithinDays', 'lt', undefined],
    ];
    for (const [field, operator, value] of bad) {
      const message = expectError(await one(field, operator, value), 400);
      expect(message, `${field} ${operator} ${JSON.stringify(value)}`).toContain('body/conditions/0/value');
    }
  });

  it('1 to 20 conditions; match and sort are enums; page and limit as every list', async () => {
    const cond = { field: 'firstName', operator: 'eq', value: 'a' };
    expect(expectError(await post({ conditions: [] }), 400)).toContain('conditions');
    expect(expectError(await post({}), 400)).toContain('conditions');
    expect(expectError(await post({ conditions: Array(21).fill(cond) }), 400)).toContain('conditions');
    expect((await post({ conditions: Array(20).fill(cond) })).statusCode).toBe(200);
    expect(expectError(await post({ conditions: [cond], match: 'some' }), 400)).toContain('match');
    expect(expectError(await post({ conditions: [cond], sort: 'age' }), 400)).toContain('sort');
    expect(expectError(await post({ conditions: [cond], page: 0 }), 400)).toContain('page');
    expect(expectError(await post({ conditions: [cond], limit: 0 }), 400)).toContain('limit');
    expect(expectError(await post({ conditions: [{ field: 'firstName', value: 'a' }] }), 400)).toContain('operator');
    expect(expectError(await post({ conditions: ['firstName'] }), 400)).toContain('conditions');
    expectError(await api(ctx.app, t.admin.token).post('/api/search/contacts', '{"conditions": [', { 'content-type': 'application/json' }), 400);
  });

  it('memberOf a group that does not exist, or is another tenant\'s, is 404 naming it', async () => {
    expect(expectError(await one('memberOf', 'eq', 999999), 404)).toBe('Group with id 999999 not found');
    const other = await newTenant(ctx);
    const theirs = await newGroup(ctx, other, { name: 'Theirs' });
    expect(expectError(await one('notMemberOf', 'eq', theirs.id), 404)).toBe(`Group with id ${theirs.id} not found`);
  });

  it('LIKE metacharacters in text values match literally', async () => {
    const res = await api(ctx.app, t.admin.token).post('/api/crm/contacts', { category: 'Person', person: { firstName: 'Per%cy', lastName: 'Under_score' } });
    expect(res.statusCode).toBe(201);
    expect((await one('firstName', 'contains', '%')).json().total).toBe(1);
    expect((await one('lastName', 'contains', '_')).json().total).toBe(1);
    expect((await one('firstName', 'startsWith', '%')).json().total).toBe(0);
    expect((await one('lastName', 'contains', 'r_s')).json().total).toBe(1);
    expect((await one('lastName', 'contains', 'd_r')).json().total).toBe(0); // 'der' would match a wildcard
  });
});
