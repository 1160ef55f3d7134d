import crypto from 'node:crypto';
import { listUsers, setPassword } from '../../core/access/index.ts';
import { operatorActor } from '../../core/activity/index.ts';
import { DomainError } from '../../core/platform/index.ts';
import { defineCommand, lines, required, UsageError } from '../command.ts';

// Account recovery by an operator (docs/operating.md#account-recovery): a password is never a flag,
// since flags end up in shell history and process listings.

async function readStdin(): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of process.stdin) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks).toString('utf8').replace(/\r?\n$/, '');
}

export default defineCommand({
  name: 'users set-password',
  summary: "set a user's password (account recovery; signs out every session)",
  help: `Usage: npm run admin -- users set-password --email E [--stdin] [--json]

  --email E   the user's email address
  --stdin     read the new password (10 to 200 characters) from standard input;
              without it, a random password is generated and printed once

Every session of the user is signed out, and a password.set_by_operator security row is written.
--json prints {userId, password} (password only when it was generated).`,
  options: {
    email: { type: 'string' },
    stdin: { type: 'boolean' },
  },
  parse(values) {
    return { email: required(values, 'email'), fromStdin: values.stdin === true };
  },
  async run(db, input) {
    const [user] = await listUsers(db, { email: input.email, limit: 1 });
    if (!user) throw new DomainError(404, 'not_found', 'Not found', `No user has the email ${input.email}.`);
    const generated = input.fromStdin ? null : crypto.randomBytes(15).toString('base64url');
    const password = generated ?? (await readStdin());
    if (password.length < 10 || password.length > 200) throw new UsageError('the password must be 10 to 200 characters');
    await setPassword(db, { userId: user.id, password, action: 'password.set_by_operator', actor: operatorActor(), keepSession: null });
    return { userId: user.id, password: generated };
  },
  json: (r) => (r.password === null ? { userId: r.userId } : r),
  text(r) {
    return lines([
      ['User', r.userId],
      ...(r.password === null ? [] : ([['Password', `${r.password}  (shown once: give it to the user, who should change it)`]] as [string, string][])),
    ]);
  },
});
