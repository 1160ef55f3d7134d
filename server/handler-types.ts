import type { Logger } from 'pino';
import type { operationQueryDefaults, operations } from '../generated/types.ts';
import type { Db } from '../core/db/index.ts';
import type { Config } from '../core/platform/index.ts';
import type { AuthContext, ClientInfo, WorkspaceGuard } from '../core/access/index.ts';
import type { OperationId } from '../core/contract/index.ts';
import type { SignedDelivery } from '../core/connections/index.ts';
import type { Mailer } from '../core/mail/index.ts';

export type { OperationId };
type Op<K extends OperationId> = operations[K];

type JsonOf<C> = C extends { content: { 'application/json': infer B } } ? B : never;

export type RequestBody<K extends OperationId> = Op<K> extends { requestBody: infer R }
  ? JsonOf<R>
  : Op<K> extends { requestBody?: infer R }
    ? JsonOf<NonNullable<R>> | undefined
    : undefined;

type QueryParams<K extends OperationId> = Op<K>['parameters'] extends { query?: infer Q } ? NonNullable<Q> : Record<string, never>;
type Defaulted<K extends OperationId> = K extends keyof operationQueryDefaults ? operationQueryDefaults[K] : never;

/** The query as a handler sees it: validation has filled in every default (e.g. limit=50), so those are required. */
export type QueryOf<K extends OperationId> = QueryParams<K> & { [P in Defaulted<K> & keyof QueryParams<K>]-?: NonNullable<QueryParams<K>[P]> };
/** The cookies the operation declares (`@cookie`), as the browser sent them; absent ones are undefined. */
export type CookiesOf<K extends OperationId> = Op<K>['parameters'] extends { cookie?: infer C } ? Partial<NonNullable<C>> : Record<string, never>;
export type PathOf<K extends OperationId> = Op<K>['parameters'] extends { path: infer P } ? P : Record<string, never>;

type SuccessStatus = 200 | 201 | 202 | 204 | 302;

type Headers = Record<string, string>;

/**
 * What a handler returns: one of the operation's success responses, typed from the document. A
 * response the document gives as `text/html` (a printable report, a page a mail link opens) is
 * returned as `html`; the dispatcher sets the media type.
 */
export type Reply<K extends OperationId> = {
  [S in keyof Op<K>['responses'] & SuccessStatus]:
    | (Op<K>['responses'][S] extends { content: { 'application/json': infer B } } ? { status: S; body: B; headers?: Headers } : never)
    | (Op<K>['responses'][S] extends { content: { 'text/html': unknown } } ? { status: S; html: string; headers?: Headers } : never)
    | (Op<K>['responses'][S] extends { content: object } ? never : { status: S; body?: undefined; headers?: Headers });
}[keyof Op<K>['responses'] & SuccessStatus];

export interface HandlerContext<K extends OperationId> {
  path: PathOf<K>;
  query: QueryOf<K>;
  body: RequestBody<K>;
  cookies: CookiesOf<K>;
  auth: AuthContext;
  /** Workspace visibility and roles for this request (404 before 403). */
  access: WorkspaceGuard;
  db: Db;
  config: Config;
  log: Logger;
  /** Outgoing mail (core/mail). */
  mail: Mailer;
  requestId: string;
  /**
   * The first of `types` the request's `Accept` header takes (q-values honoured), or false; with
   * no `Accept` header, the first. For operations the document gives more than one media type.
   */
  accepts(...types: string[]): string | false;
  /** Where the request came from (sessions and their audit rows record it). */
  client: ClientInfo;
  /** For a request authenticated by a session: its CSRF token; else null. */
  csrfToken: string | null;
  /** Set for operations authenticated by signature (`x-signature`) instead of a key; they have no `auth` or `access`. */
  hook: SignedDelivery | null;
}

export type Handler<K extends OperationId> = (ctx: HandlerContext<K>) => Promise<Reply<K>>;

/** Every operation of the document must have exactly one handler. */
export type HandlerMap = { [K in OperationId]: Handler<K> };

/** A handler as the dispatcher calls it, whatever its operation. */
export type AnyHandler = (ctx: HandlerContext<OperationId>) => Promise<{ status: number; body?: unknown; html?: string; headers?: Record<string, string> }>;
