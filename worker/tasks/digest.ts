import { sendDigests } from '../../core/digests/index.ts';
import { Mailer } from '../../core/mail/index.ts';
import type { TaskHandler } from '../task.ts';

/** One slot's digests of a workspace, to each member who wants them, once (core/digests/send.ts). */
export const digest: TaskHandler<'digest'> = async (payload, ctx) => {
  const mail = new Mailer(ctx.config.mail, ctx.logger);
  try {
    const run = await sendDigests(ctx.db, mail, { publicUrl: ctx.config.publicUrl }, payload);
    ctx.logger.info({ workspaceId: payload.workspaceId, frequency: payload.frequency, ...run }, 'digests sent');
  } finally {
    mail.close();
  }
};
