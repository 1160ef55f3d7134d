// Domain errors carry the problem-document fields of docs/api.md#problem-documents; the HTTP layer
// turns them into application/problem+json in one place. Domain code never sees Koa.

export interface FieldError {
  in: 'body' | 'query' | 'path' | 'header';
  path: string;
  message: string;
}

export class DomainError extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
    readonly title: string,
    detail: string,
    readonly errors?: FieldError[],
  ) {
    super(detail);
    this.name = 'DomainError';
  }
}

export class ValidationFailed extends DomainError {
  constructor(detail: string, errors: FieldError[]) {
    super(400, 'validation_failed', 'Validation failed', detail, errors);
  }
}

export class NotFound extends DomainError {
  constructor(detail = 'The resource does not exist or you cannot see it.') {
    super(404, 'not_found', 'Not found', detail);
  }
}

export class Forbidden extends DomainError {
  constructor(detail: string) {
    super(403, 'forbidden', 'Forbidden', detail);
  }
}

export class Conflict extends DomainError {
  constructor(code: string, detail: string) {
    super(409, code, 'Conflict', detail);
  }
}

export class WorkspaceLimitReached extends DomainError {
  constructor(limit: number) {
    super(402, 'workspace_limit', 'Workspace limit reached', `This account can hold at most ${limit} workspaces.`);
  }
}

/**
 * The database could not be reached, or stayed busy past the bounded wait. Nothing was changed
 * (the transaction rolled back or never began), so the client may simply retry after
 * `retryAfterSeconds`.
 */
export class ServiceUnavailable extends DomainError {
  constructor(
    detail = 'The service is busy or its database is unreachable; nothing was changed. Retry after the Retry-After delay.',
    readonly retryAfterSeconds = 1,
  ) {
    super(503, 'service_unavailable', 'Service unavailable', detail);
  }
}
