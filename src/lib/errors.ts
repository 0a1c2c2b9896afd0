/** Errors the service throws on purpose; the error handler turns them into {statusCode, message, error}. */
export class AppError extends Error {
  constructor(
    readonly statusCode: number,
    message: string,
  ) {
    super(message);
    this.name = new.target.name;
  }
}

export class BadRequestError extends AppError {
  constructor(message: string) {
    super(400, message);
  }
}

export class UnauthorizedError extends AppError {
  constructor(message = 'Unauthorized') {
    super(401, message);
  }
}

export class ForbiddenError extends AppError {
  constructor(message = 'You do not have permission to do this') {
    super(403, message);
  }
}

export class NotFoundError extends AppError {
  /** `new NotFoundError('Contact', 42)` → "Contact with id 42 not found". */
  constructor(entity: string, id?: number | string | readonly (number | string)[]) {
    const ids = Array.isArray(id) ? id.join(', ') : id;
    super(404, id === undefined ? `${entity} not found` : `${entity} with id ${ids} not found`);
  }
}

export class ConflictError extends AppError {
  constructor(message: string) {
    super(409, message);
  }
}

export class TooManyRequestsError extends AppError {
  constructor(readonly retryAfterSeconds: number) {
    super(429, `Too many attempts; retry in ${retryAfterSeconds} seconds`);
  }
}
