import { acceptDelivery } from '../../core/connections/index.ts';
import type { Handler, HandlerContext } from '../handler-types.ts';

type HookOp = 'Hooks_github' | 'Hooks_gitlab';

/** Both hosts alike: the signature was checked before the body was parsed (server/middleware/signature.ts). */
async function receive(ctx: HandlerContext<HookOp>) {
  const { status, receipt } = await acceptDelivery(ctx.db, ctx.hook!, ctx.body);
  return status === 202 ? { status: 202 as const, body: receipt } : { status: 200 as const, body: receipt };
}

export const github: Handler<'Hooks_github'> = (ctx) => receive(ctx);
export const gitlab: Handler<'Hooks_gitlab'> = (ctx) => receive(ctx);
