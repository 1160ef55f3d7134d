import type { AuthContext, VisibleWorkspace, WorkspaceGuard } from '../core/access/index.ts';
import type { Operation } from '../core/contract/index.ts';
import type { NO_BODY } from './body.ts';
import type { SignedDelivery } from '../core/connections/index.ts';

/** What the middleware of one request hand to each other, on `ctx.state`. */
export interface RequestState {
  requestId: string;
  startedAt: number;
  /** The route template the request matched (`/v1/deploys/{id}`), for metrics and the log. */
  route: string | null;
  auth: AuthContext | null;
  /** The workspace the handler touched (first one), for the request log. */
  workspaceId: string | null;
  /** The workspace the request named, as authentication read it: logged under when visible. */
  named: VisibleWorkspace | null;
  /** What the client was told went wrong, for the request log. */
  errorMessage: string | null;
}

/** The state of a request matched to an operation, filled in as its pipeline runs. */
export interface OperationState extends RequestState {
  op: Operation;
  /** The body as read (before authentication: it may name the workspace). */
  bodyText: string | typeof NO_BODY;
  params: Record<string, string>;
  query: Record<string, unknown>;
  body: unknown;
  access: WorkspaceGuard;
  /** For a request authenticated by a session: its CSRF token (GET /v1/me shows it). */
  csrfToken?: string;
  /** For an operation authenticated by signature (`x-signature`): the delivery as verified. */
  hook?: SignedDelivery;
}
