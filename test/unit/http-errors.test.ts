import { describe, expect, it } from 'vitest';
import { BadRequestError, ConflictError, ForbiddenError, NotFoundError, TooManyRequestsError, UnauthorizedError } from '../../src/lib/errors.js';
import { toHttpError, validationMessage } from '../../src/lib/http-errors.js';
import { DATE_PATTERN } from '../../src/lib/schemas.js';

/** What drizzle-orm throws: a DrizzleQueryError whose cause is the driver's error. */
function drizzleWrapped(code: string) {
  const driverError = Object.assign(new Error('duplicate key value violates unique constraint "users_username_uq"'), { code, detail: 'Key (tenant_id)=(1) secret detail' });
  return Object.assign(new Error('Failed query: insert into "users" ... params: 1,secret'), { name: 'DrizzleQueryError', cause: driverError });
}

describe('toHttpError', () => {
  it('maps the service errors', () => {
    expect(toHttpError(new BadRequestError('bad'))).toEqual({ statusCode: 400, message: 'bad', error: 'Bad Request' });
    expect(toHttpError(new UnauthorizedError())).toEqual({ statusCode: 401, message: 'Unauthorized', error: 'Unauthorized' });
    expect(toHttpError(new ForbiddenError())).toEqual({ statusCode: 403, message: 'You do not have permission to do this', error: 'Forbidden' });
    expect(toHttpError(new NotFoundError('Contact', 42))).toEqual({ statusCode: 404, message: 'Contact with id 42 not found', error: 'Not Found' });
    expect(toHttpError(new NotFoundError('Contact', [1, 2])).message).toBe('Contact with id 1, 2 not found');
    expect(toHttpError(new NotFoundError('Church x')).message).toBe('Church x not found');
    expect(toHttpError(new ConflictError('dup'))).toEqual({ statusCode: 409, message: 'dup', error: 'Conflict' });
    expect(toHttpError(new TooManyRequestsError(7))).toEqual({ statusCode: 429, message: 'Too many attempts; retry in 7 seconds', error: 'Too Many Requests' });
  });

  it('maps PostgreSQL codes, also wrapped as a cause, without leaking details', () => {
    expect(toHttpError(drizzleWrapped('23505'))).toEqual({ statusCode: 409, message: 'A record with the same unique value already exists', error: 'Conflict' });
    expect(toHttpError(drizzleWrapped('23503')).statusCode).toBe(409);
    expect(toHttpError(drizzleWrapped('22P02'))).toEqual({ statusCode: 400, message: 'Invalid value in request', error: 'Bad Request' });
    expect(toHttpError(drizzleWrapped('22003')).statusCode).toBe(400);
    expect(toHttpError(drizzleWrapped('22007')).statusCode).toBe(400);
    expect(toHttpError(drizzleWrapped('22008')).statusCode).toBe(400);
    expect(toHttpError(drizzleWrapped('23514')).statusCode).toBe(400);
    expect(toHttpError(drizzleWrapped('23502')).statusCode).toBe(400);
    expect(toHttpError(Object.assign(new Error('x'), { code: '23505' })).statusCode).toBe(409);
    const deep = Object.assign(new Error('outer'), { cause: drizzleWrapped('23505') });
    expect(toHttpError(deep).statusCode).toBe(409);
    for (const code of ['42P01', '42703', '40001', '53300', '57014', 'XX000']) {
      expect(toHttpError(drizzleWrapped(code))).toEqual({ statusCode: 500, message: 'Internal Server Error', error: 'Internal Server Error' });
    }
  });

  it('maps validation errors to one message naming the field', () => {
    const err = Object.assign(new Error('x'), {
      statusCode: 400, code: 'FST_ERR_VALIDATION', validationContext: 'body',
      validation: [{ instancePath: '/person', keyword: 'required', params: { missingProperty: 'firstName' }, message: "must have required property 'firstName'" }],
    });
    expect(toHttpError(err)).toEqual({ statusCode: 400, message: 'body/person/firstName is required', error: 'Bad Request' });
  });

  it('maps JWT and body-parser errors', () => {
    expect(toHttpError(Object.assign(new Error('x'), { code: 'FST_JWT_NO_AUTHORIZATION_IN_HEADER', statusCode: 401 }))).toEqual({ statusCode: 401, message: 'Missing bearer token', error: 'Unauthorized' });
    expect(toHttpError(Object.assign(new Error('secret internals'), { code: 'FAST_JWT_INVALID_SIGNATURE' })).message).toBe('Invalid or expired token');
    expect(toHttpError(Object.assign(new Error('x'), { code: 'FST_JWT_AUTHORIZATION_TOKEN_EXPIRED', statusCode: 401 })).statusCode).toBe(401);
    expect(toHttpError(Object.assign(new Error('x'), { code: 'FST_ERR_CTP_BODY_TOO_LARGE', statusCode: 413 }))).toEqual({ statusCode: 413, message: 'Request body is too large', error: 'Payload Too Large' });
    expect(toHttpError(Object.assign(new Error('x'), { code: 'FST_ERR_CTP_INVALID_MEDIA_TYPE', statusCode: 415 })).statusCode).toBe(415);
    expect(toHttpError(Object.assign(new SyntaxError('Unexpected token'), { statusCode: 400 })).message).toBe('Body is not valid JSON');
  });

  it('anything else is a bare 500; other 4xx keep their message', () => {
    expect(toHttpError(new Error('connection refused at 10.0.0.1'))).toEqual({ statusCode: 500, message: 'Internal Server Error', error: 'Internal Server Error' });
    expect(toHttpError(new TypeError('x is undefined')).statusCode).toBe(500);
    expect(toHttpError(undefined).statusCode).toBe(500);
    expect(toHttpError(null).statusCode).toBe(500);
    expect(toHttpError('a string').statusCode).toBe(500);
    expect(toHttpError(Object.assign(new Error('boom'), { statusCode: 502 })).statusCode).toBe(500);
    expect(toHttpError(Object.assign(new Error('Too many requests; retry in 5 seconds'), { statusCode: 429 }))).toEqual({ statusCode: 429, message: 'Too many requests; retry in 5 seconds', error: 'Too Many Requests' });
    expect(toHttpError(Object.assign(new Error(''), { statusCode: 405 })).message).toBe('Method Not Allowed');
  });

  it('a self-referencing cause chain does not hang', () => {
    const e = new Error('loop') as Error & { cause?: unknown };
    e.cause = e;
    expect(toHttpError(e).statusCode).toBe(500);
  });
});

describe('validationMessage', () => {
  const msg = (issue: Parameters<typeof validationMessage>[1], ctx = 'body') => validationMessage(ctx, issue);
  it('names the field and why', () => {
    expect(msg({ instancePath: '', keyword: 'required', params: { missingProperty: 'email' } })).toBe('body/email is required');
    expect(msg({ instancePath: '/person/dateOfBirth', keyword: 'format', params: { format: 'date' } })).toBe('body/person/dateOfBirth must be a date YYYY-MM-DD');
    expect(msg({ instancePath: '/startsAt', keyword: 'format', params: { format: 'date-time' } })).toBe('body/startsAt must be an ISO 8601 date-time');
    expect(msg({ instancePath: '/email', keyword: 'format', params: { format: 'email' } })).toBe('body/email must be a valid email');
    expect(msg({ instancePath: '/d', keyword: 'pattern', params: { pattern: DATE_PATTERN } })).toBe('body/d must be a date YYYY-MM-DD from 0001 to 9999');
    expect(msg({ instancePath: '/slug', keyword: 'pattern', params: { pattern: '^[a-z]+$' } })).toBe('body/slug has an invalid format');
    expect(msg({ instancePath: '/status', keyword: 'enum', params: { allowedValues: ['Active', 'Inactive'] } })).toBe('body/status must be one of: Active, Inactive');
    expect(msg({ instancePath: '/id', keyword: 'type', message: 'must be integer', params: { type: 'integer' } }, 'params')).toBe('params/id must be integer');
    expect(msg({ instancePath: '/limit', keyword: 'minimum', message: 'must be >= 1' }, 'querystring')).toBe('querystring/limit must be >= 1');
    expect(msg({ instancePath: '', keyword: 'additionalProperties', params: { additionalProperty: 'x' } })).toBe("body must not have property 'x'");
    expect(msg({})).toBe('body is invalid');
  });
});
