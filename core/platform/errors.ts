// Domain errors carry the problem-document fields of docs/api.md#problem-documents; the HTTP layer
// turns them into application/problem+json in one place. Domain code never sees Koa.

export interface FieldError {
  in: 'body' | 'query' | 'path' | 'header';
  path: string;
  message: string;
}

/**
 * Members a problem document may carry beyond RFC 9457's (spec/common/errors.tsp, `Problem`): what
 * a 403 would have needed.
 */
export interface ProblemMembers {
  requiredScope?: string;
  requiredRole?: string;
}

export class DomainError extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
    readonly title: string,
    detail: string,
    readonly errors?: FieldError[],
    readonly members?: ProblemMembers,
  ) {
    super(detail);
    this.name = 'DomainError';
  }

  /** Seconds the client should wait before retrying (sent as `Retry-After`), for the errors that say so. */
  get retryAfter(): number | null {
    return null;
  }
}

export class ValidationFailed extends DomainError {
  constructor(detail: string, errors: FieldError[]) {
    super(400, 'validation_failed', 'Validation failed', detail, errors);
  }
}

export class NotFound extends DomainError {
  constructor(detail = 'The resource does not exist or you cannot see it.', errors?: FieldError[]) {
    super(404, 'not_found', 'Not found', detail, errors);
  }
}

/** A body or query field of a request that names a resource: the field, as a problem names it. */
export interface ReferencingField {
  in: 'body' | 'query';
  /** The field's name, e.g. `workspaceId` or `workspace_id`. */
  name: string;
}

/**
 * The 404 of a resource that a body or query field names (docs/api.md#visibility): the same
 * `not_found` as any missing resource, with the field named in `detail` and `errors`. It reads
 * the same whether the resource does not exist or is not the caller's to see, so it never tells
 * which. `resource` is the kind the field names, e.g. `workspace`.
 */
export function referenceNotFound(resource: string, field: ReferencingField): NotFound {
  return new NotFound(`No ${resource} with the id given in ${field.name}.`, [
    { in: field.in, path: `/${field.name}`, message: `is not the id of a ${resource} you can see` },
  ]);
}

export class Forbidden extends DomainError {
  /** `requiredRole`: the lowest role that may do it, when the caller's role is why. */
  constructor(detail: string, requiredRole?: string) {
    super(403, 'forbidden', 'Forbidden', detail, undefined, requiredRole ? { requiredRole } : undefined);
  }
}

/** The key lacks the operation's scope; the problem names the one it needs. */
export class InsufficientScope extends DomainError {
  constructor(requiredScope: string) {
    super(403, 'insufficient_scope', 'Insufficient scope', `This operation needs the "${requiredScope}" scope.`, undefined, { requiredScope });
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
    code = 'service_unavailable',
    title = 'Service unavailable',
  ) {
    super(503, code, title, detail);
  }

  override get retryAfter(): number {
    return this.retryAfterSeconds;
  }
}
