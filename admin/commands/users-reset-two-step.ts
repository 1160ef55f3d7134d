import { disableTwoStep, listUsers } from '../../core/access/index.ts';
import { operatorActor } from '../../core/activity/index.ts';
import { DomainError } from '../../core/platform/index.ts';
import { defineCommand, lines, required } from '../command.ts';

// Account recovery by an operator (docs/api.md#operator-cli): for a person who lost both the
// authenticator app and the recovery codes.
export default defineCommand({
  name: 'users reset-two-step',
  summary: "turn a user's two-step verification off (account recovery)",
  help: `Usage: npm run admin -- users reset-two-step --email E [--json]

  --email E   the user's email address

The TOTP secret and the recovery codes are deleted; the user signs in with the password alone and
can set two-step up again. A two_step.reset_by_operator security row is written. Confirm who is
asking before running it: it removes a factor.
--json prints {userId}.`,
  options: {
    email: { type: 'string' },
  },
  parse(values) {
    return { email: required(values, 'email') };
  },
  async run(db, input) {
    const [user] = await listUsers(db, { email: input.email, limit: 1 });
    if (!user) throw new DomainError(404, 'not_found', 'Not found', `No user has the email ${input.email}.`);
    await disableTwoStep(db, { userId: user.id, actor: operatorActor(), action: 'two_step.reset_by_operator' });
    return { userId: user.id };
  },
  json: (r) => r,
  text: (r) => lines([['User', r.userId], ['Two-step', 'off']]),
});
