import type { Context, Next } from 'koa';
import type { Db } from '../../core/db/index.ts';
import type { Config } from '../../core/platform/index.ts';
import type { Operation } from '../../core/contract/index.ts';
import { connectionSettings, verifyDelivery } from '../../core/connections/index.ts';
import { NotFound } from '../../core/platform/index.ts';
import { NO_BODY } from '../body.ts';
import type { OperationState } from '../state.ts';

/**
 * Authentication for an operation that declares `x-signature` instead of a scope (spec/connections.tsp):
 * the connection its path names, and the delivery's signature over the raw body, checked before
 * the body is parsed. The request is logged under the connection's workspace.
 */
export function verifySignature(db: Db, config: Config, op: Operation) {
  const source = op.signature!;
  return async (ctx: Context, next: Next): Promise<void> => {
    const state = ctx.state as OperationState;
    const connectionId = state.params[source.name];
    if (connectionId === undefined) throw new NotFound();
    const body = state.bodyText === NO_BODY ? '' : state.bodyText;
    state.hook = await verifyDelivery(db, source, connectionId, (name) => ctx.get(name), body, connectionSettings(config).keyring);
    state.workspaceId = state.hook.connection.workspace_id;
    await next();
  };
}
