import { STATUS_CODES } from 'node:http';
import { AppError } from './errors.js';
import { DATE_PATTERN } from './schemas.js';

export interface HttpError {
  statusCode: number;
  message: string;
  error: string;
}

interface ValidationIssue {
  instancePath?: string;
  keyword?: string;
  message?: string;
  params?: Record<string, unknown>;
}

type AnyError = Error & {
  statusCode?: number;
  code?: string;
  validation?: ValidationIssue[];
  validationContext?: string;
  cause?: unknown;
};

const CONTENT_TYPE_ERRORS: Record<string, [number, string]> = {
  FST_ERR_CTP_BODY_TOO_LARGE: [413, 'Request body is too large'],
  FST_ERR_CTP_INVALID_MEDIA_TYPE: [415, 'Unsupported content type'],
  FST_ERR_CTP_INVALID_CONTENT_LENGTH: [400, 'Request body size did not match Content-Length'],
  FST_ERR_CTP_EMPTY_JSON_BODY: [400, 'Body cannot be empty when content-type is application/json'],
  FST_ERR_CTP_INVALID_JSON_BODY: [400, 'Body is not valid JSON'],
  FST_ERR_BAD_URL: [400, 'The URL is not valid'],
  FST_ERR_MAX_PARAM_LENGTH: [414, 'A URL parameter is too long'],
  FST_ERR_ASYNC_CONSTRAINT: [500, 'Internal Server Error'],
};

/** Maps anything thrown while handling a request to the one error shape of api-contract §1. */
export function toHttpError(err: unknown): HttpError {
  const e = (err ?? {}) as AnyError;
  if (e instanceof AppError) return shape(e.statusCode, e.message);
  if (Array.isArray(e.validation) && e.validation.length > 0) {
    return shape(400, validationMessage(e.validationContext ?? 'request', e.validation[0]));
  }
  const code = typeof e.code === 'string' ? e.code : '';
  if (code.startsWith('FAST_JWT_') || code.startsWith('FST_JWT_')) {
    return shape(401, code === 'FST_JWT_NO_AUTHORIZATION_IN_HEADER' ? 'Missing bearer token' : 'Invalid or expired token');
  }
  if (CONTENT_TYPE_ERRORS[code]) return shape(...CONTENT_TYPE_ERRORS[code]);
  if (e instanceof SyntaxError && e.statusCode === 400) return shape(400, 'Body is not valid JSON');
  const pgCode = postgresCode(e);
  // Connections lost (terminated, server restarting, refused): the client may retry (issue 19).
  if ((pgCode && /^(08|57P)/.test(pgCode)) || isConnectionLoss(e)) return shape(503, 'Database unavailable');
  if (pgCode) {
    if (pgCode.startsWith('22')) return shape(400, 'Invalid value in request');
    if (pgCode === '23505') return shape(409, 'A record with the same unique value already exists');
    if (pgCode === '23503' || pgCode === '23001') return shape(409, 'The record is still referenced by other records');
    if (pgCode === '23514' || pgCode === '23502') return shape(400, 'Invalid value in request');
  }
  if (typeof e.statusCode === 'number' && e.statusCode >= 400 && e.statusCode < 500) {
    return shape(e.statusCode, e.message || STATUS_CODES[e.statusCode] || 'Error');
  }
  return shape(500, 'Internal Server Error');
}

function shape(statusCode: number, message: string): HttpError {
  return { statusCode, message, error: STATUS_CODES[statusCode] ?? 'Error' };
}

/** PostgreSQL's SQLSTATE, also when Drizzle wraps the driver's error as its cause. */
function postgresCode(e: AnyError): string | undefined {
  for (let cur: AnyError | undefined = e, depth = 0; cur && depth < 4; cur = cur.cause as AnyError, depth++) {
    if (typeof cur.code === 'string' && /^[0-9A-Z]{5}$/.test(cur.code) && /^(08|22|23|42|40|53|57)/.test(cur.code)) {
      return cur.code;
    }
  }
  return undefined;
}

/** node-postgres reports a connection that died without a SQLSTATE. */
function isConnectionLoss(e: AnyError): boolean {
  for (let cur: AnyError | undefined = e, depth = 0; cur && depth < 4; cur = cur.cause as AnyError, depth++) {
    if (cur.code === 'ECONNRESET' || cur.code === 'ECONNREFUSED' || cur.code === 'EPIPE') return true;
    if (typeof cur.message === 'string' && /^Connection terminated|not queryable|Connection ended/.test(cur.message)) return true;
  }
  return false;
}

/** "body/person/dateOfBirth must be a date YYYY-MM-DD": the field and why, one sentence. */
export function validationMessage(context: string, issue: ValidationIssue): string {
  const params = issue.params ?? {};
  let field = `${context}${issue.instancePath ?? ''}`;
  let why = issue.message ?? 'is invalid';
  switch (issue.keyword) {
    case 'required':
      field = `${field}/${String(params.missingProperty)}`;
      why = 'is required';
      break;
    case 'format':
      why = params.format === 'date' ? 'must be a date YYYY-MM-DD' : params.format === 'date-time' ? 'must be an ISO 8601 date-time' : `must be a valid ${String(params.format)}`;
      break;
    case 'pattern':
      why = params.pattern === DATE_PATTERN ? 'must be a date YYYY-MM-DD from 0001 to 9999' : 'has an invalid format';
      break;
    case 'enum':
      why = `must be one of: ${(params.allowedValues as unknown[] | undefined)?.join(', ')}`;
      break;
    case 'additionalProperties':
      why = `must not have property '${String(params.additionalProperty)}'`;
      break;
  }
  return `${field} ${why}`;
}
