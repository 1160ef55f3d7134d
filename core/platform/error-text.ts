// Text about an error that is safe to log or store: never the values of a failed statement.
// Knex prefixes a database error's message with the statement, and on SQLite with its bound
// values written in (a workspace name, an email...); the shape of the statement (its verb and
// table) and the driver's error code say what failed without them.

const STATEMENT = /^\s*(insert into|update|delete from|select .*? from|with .*? (?:insert into|update|delete from)|create (?:unique )?index|alter table|create table)\s+["`]?([\w.]+)/is;

interface DbErrorLike {
  name?: string;
  message?: string;
  code?: string | number;
}

const MAX = 2000;

/** `Name (code): message`, with any SQL statement reduced to its verb and table. */
export function safeErrorText(err: unknown): string {
  if (!(err instanceof Error) && (typeof err !== 'object' || err === null)) return String(err).slice(0, MAX);
  const e = err as DbErrorLike;
  let message = e.message ?? '';
  // knex: "<statement> - <driver message>"
  const dash = message.lastIndexOf(' - ');
  const shape = STATEMENT.exec(message);
  if (shape) {
    const driverMessage = dash >= 0 ? message.slice(dash + 3) : '';
    message = `${shape[1].split(/\s+/)[0].toLowerCase()} ${shape[2]}: ${stripValues(driverMessage)}`;
  }
  const code = e.code !== undefined ? ` (${e.code})` : '';
  return `${e.name ?? 'Error'}${code}: ${message}`.slice(0, MAX);
}

// PostgreSQL's detail-like messages quote values: `Key (slug)=(acme) already exists.`
function stripValues(text: string): string {
  return text.replace(/=\([^)]*\)/g, '=(…)').replace(/'[^']*'/g, "'…'");
}
