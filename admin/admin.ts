// Operator CLI (docs/api.md#operator-cli): `npm run admin -- <command> [flags] [--json]`.
// Exit codes: 0 success; 1 usage, validation or domain error, or a database that stayed busy or
// unreachable (one line on stderr, nothing changed); 2 an unexpected failure (a bug), also one line.
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { parseArgs } from 'node:util';
import { DomainError, loadConfig, safeErrorText } from '../core/platform/index.ts';
import { createDb, isDatabaseUnavailable, migrateLatest, type Db } from '../core/db/index.ts';
import { UsageError, registerCommand, type RegisteredCommand } from './command.ts';
import bootstrap from './commands/bootstrap.ts';
import usersCreate from './commands/users-create.ts';
import usersList from './commands/users-list.ts';
import usersSetPassword from './commands/users-set-password.ts';
import usersResetTwoStep from './commands/users-reset-two-step.ts';
import membersAdd from './commands/members-add.ts';
import membersRemove from './commands/members-remove.ts';
import keysCreate from './commands/keys-create.ts';
import keysRevoke from './commands/keys-revoke.ts';
import keysList from './commands/keys-list.ts';
import accountsSetLimit from './commands/accounts-set-limit.ts';
import { jobsCommands } from './commands/jobs.ts';
import searchImport from './commands/search-import.ts';
import secretsReseal from './commands/secrets-reseal.ts';

// The command table: one file per command in admin/commands/, named after the command.
// To add one, write admin/commands/<group>-<verb>.ts exporting defineCommand({...}) and
// list it here; help, flag parsing, --json, the database and exit codes come for free.
const COMMANDS: RegisteredCommand[] = [
  registerCommand(bootstrap),
  registerCommand(usersCreate),
  registerCommand(usersList),
  registerCommand(usersSetPassword),
  registerCommand(usersResetTwoStep),
  registerCommand(membersAdd),
  registerCommand(membersRemove),
  registerCommand(keysCreate),
  registerCommand(keysRevoke),
  registerCommand(keysList),
  registerCommand(accountsSetLimit),
  ...jobsCommands,
  registerCommand(searchImport),
  registerCommand(secretsReseal),
];

const PROGRAM = 'npm run admin --';

function globalHelp(): string {
  const width = Math.max(...COMMANDS.map((c) => c.name.length));
  return `Usage: ${PROGRAM} <command> [flags] [--json]

Commands:
${COMMANDS.map((c) => `  ${c.name.padEnd(width)}  ${c.summary}`).join('\n')}

Flags for every command:
  --json   print exactly one JSON object on stdout
  --help   show the command's usage

The database is DATABASE_URL (default sqlite:./data/sitehealth.db); migrations run first.
While the API server and workers write, a command waits for the database (up to 15 s).
Exit codes: 0 success; 1 usage or validation error, or the database stayed busy or
unreachable (nothing was changed); 2 unexpected failure.`;
}

function groupHelp(group: string, members: RegisteredCommand[]): string {
  return `Usage: ${PROGRAM} ${group} <${members.map((c) => c.name.split(' ')[1]).join('|')}> [flags] [--json]\n\n${members
    .map((c) => `  ${c.name}  ${c.summary}`)
    .join('\n')}\n\nRun "${PROGRAM} ${group} <command> --help" for a command's flags.`;
}

interface Io {
  out(text: string): void;
  err(text: string): void;
}

const HELP_FLAGS = new Set(['--help', '-h']);

/** Runs one invocation and returns its exit code (exported for tests and scripts). */
export async function main(argv: string[], env: NodeJS.ProcessEnv = process.env, io: Io = defaultIo): Promise<number> {
  const wantsHelp = argv.some((a) => HELP_FLAGS.has(a));
  // The command is the leading words; global flags may come before it.
  const args = [...argv];
  const leadingFlags: string[] = [];
  while (args.length && (args[0] === '--json' || HELP_FLAGS.has(args[0]))) leadingFlags.push(args.shift()!);
  if (args[0] === 'help') {
    args.shift();
    if (args.length === 0) {
      io.out(globalHelp());
      return 0;
    }
    args.push('--help');
    return main([...leadingFlags, ...args], env, io);
  }
  const words: string[] = [];
  while (words.length < 2 && args.length && !args[0].startsWith('-')) words.push(args.shift()!);

  if (words.length === 0) {
    if (wantsHelp) {
      io.out(globalHelp());
      return 0;
    }
    io.err(`admin: no command given\n\n${globalHelp()}`);
    return 1;
  }

  let command = COMMANDS.find((c) => c.name === words.join(' '));
  if (!command && words.length === 2) {
    command = COMMANDS.find((c) => c.name === words[0]);
    if (command) args.unshift(words.pop()!);
  }
  if (!command) {
    const group = COMMANDS.filter((c) => c.name.split(' ')[0] === words[0] && c.name.includes(' '));
    if (group.length && words.length === 1 && wantsHelp) {
      io.out(groupHelp(words[0], group));
      return 0;
    }
    const hint = group.length ? groupHelp(words[0], group) : `Run "${PROGRAM} --help" for the list of commands.`;
    const what = group.length && words.length === 1 ? `"${words[0]}" needs a command` : `unknown command "${words.join(' ')}"`;
    io.err(`admin: ${what}\n\n${hint}`);
    return 1;
  }
  if (wantsHelp) {
    io.out(command.help);
    return 0;
  }

  let run: ReturnType<RegisteredCommand['prepare']>;
  let json: boolean;
  try {
    const { values, positionals } = parseArgs({
      args: [...leadingFlags, ...args],
      options: { ...command.options, json: { type: 'boolean' }, help: { type: 'boolean', short: 'h' } },
      strict: true,
      allowPositionals: true,
    });
    if (positionals.length) throw new UsageError(`unexpected argument "${positionals[0]}"`);
    json = values.json === true;
    run = command.prepare(values as Record<string, string | boolean | undefined>);
  } catch (err) {
    const message = err instanceof UsageError ? err.message : (err as Error).message;
    if (err instanceof UsageError || (err as { code?: string }).code?.startsWith('ERR_PARSE_ARGS')) {
      io.err(`admin ${command.name}: ${message}\nRun "${PROGRAM} ${command.name} --help" for usage.`);
      return 1;
    }
    throw err;
  }

  let db: Db | undefined;
  try {
    const config = loadConfig(env);
    // An operator would rather wait a little than retry by hand.
    db = createDb(config.databaseUrl, { busyWaitMs: Math.max(config.dbBusyWaitMs, 15_000) });
    await migrateLatest(db);
    const result = await run(db);
    io.out(json ? JSON.stringify(result.json) : result.text);
    return 0;
  } catch (err) {
    if (err instanceof DomainError) {
      const fields = err.errors?.length ? ` (${err.errors.map((e) => `${e.path}: ${e.message}`).join('; ')})` : '';
      io.err(`admin ${command.name}: ${err.message}${fields}`);
      return 1;
    }
    if (isDatabaseUnavailable(err)) {
      io.err(`admin ${command.name}: the database is busy or unreachable (${safeErrorText(err)}); nothing was changed, try again`);
      return 1;
    }
    io.err(`admin ${command.name}: unexpected error: ${safeErrorText(err)}`);
    return 2;
  } finally {
    await db?.destroy();
  }
}

const defaultIo: Io = {
  out: (text) => process.stdout.write(`${text}\n`),
  err: (text) => process.stderr.write(`${text}\n`),
};

// Run only as a program, not when a test imports `main`.
if (process.argv[1] && import.meta.url === pathToFileURL(path.resolve(process.argv[1])).href) {
  main(process.argv.slice(2)).then(
    (code) => {
      process.exitCode = code;
    },
    (err: unknown) => {
      process.stderr.write(`admin: unexpected error: ${safeErrorText(err)}\n`);
      process.exitCode = 2;
    },
  );
}
