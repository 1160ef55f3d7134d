import type { ParseArgsConfig } from 'node:util';
import type { Db } from '../core/db/index.ts';
import { isUuid } from '../core/platform/index.ts';

export type OptionValues = Record<string, string | boolean | undefined>;

/**
 * One operator command. `parse` turns flags into input and throws UsageError before any
 * database is opened, so a typo fails fast and touches nothing; `run` does the work and
 * returns the object printed by `--json`; `text` is the human rendering of the same result.
 */
export interface Command<I = unknown, R extends object = Record<string, unknown>> {
  /** One or two words, e.g. `keys create`. */
  name: string;
  summary: string;
  /** Synopsis and option descriptions, shown by `--help`. */
  help: string;
  options: NonNullable<ParseArgsConfig['options']>;
  parse(values: OptionValues): I;
  run(db: Db, input: I): Promise<R>;
  /** The `--json` object: exactly the keys docs/api.md#operator-cli lists (the result may hold more, for `text`). */
  json(result: R): object;
  text(result: R): string;
}

export function defineCommand<I, R extends object>(c: Command<I, R>): Command<I, R> {
  return c;
}

/** A command with its input and result types closed over: what the command table holds. */
export interface RegisteredCommand {
  name: string;
  summary: string;
  help: string;
  options: NonNullable<ParseArgsConfig['options']>;
  /** Reads the flags (a UsageError when they are wrong), and says how to run with them. */
  prepare(values: OptionValues): (db: Db) => Promise<{ json: object; text: string }>;
}

export function registerCommand<I, R extends object>(c: Command<I, R>): RegisteredCommand {
  return {
    name: c.name,
    summary: c.summary,
    help: c.help,
    options: c.options,
    prepare(values) {
      const input = c.parse(values);
      return async (db) => {
        const result = await c.run(db, input);
        return { json: c.json(result), text: c.text(result) };
      };
    },
  };
}

/** A usage or validation error: message on stderr, exit code 1. */
export class UsageError extends Error {
  constructor(
    message: string,
    /** The command whose `--help` would help, if any. */
    readonly command?: string,
  ) {
    super(message);
    this.name = 'UsageError';
  }
}

export function required(values: OptionValues, flag: string): string {
  const v = values[flag];
  if (typeof v !== 'string' || v.trim() === '') throw new UsageError(`--${flag} is required`);
  return v.trim();
}

export function optional(values: OptionValues, flag: string): string | undefined {
  const v = values[flag];
  if (v === undefined) return undefined;
  if (typeof v !== 'string' || v.trim() === '') throw new UsageError(`--${flag} needs a value`);
  return v.trim();
}

export function uuid(flag: string, value: string): string {
  if (!isUuid(value)) throw new UsageError(`--${flag} must be a UUID, got "${value}"`);
  return value.toLowerCase();
}

/** A positive integer that fits the 32-bit integer columns. */
export function positiveInt(flag: string, value: string): number {
  const n = /^\d+$/.test(value) ? Number(value) : NaN;
  if (!Number.isSafeInteger(n) || n < 1 || n > 2_147_483_647) throw new UsageError(`--${flag} must be a positive integer, got "${value}"`);
  return n;
}

/** `--limit N` of a listing command: 1 to 1000, `fallback` when absent. */
export function limitFlag(values: OptionValues, fallback: number): number {
  const raw = optional(values, 'limit');
  const limit = raw === undefined ? fallback : positiveInt('limit', raw);
  if (limit > 1000) throw new UsageError(`--limit must be at most 1000, got ${limit}`);
  return limit;
}

/** `label   value` lines for human output. */
export function lines(rows: Array<[string, string]>): string {
  const width = Math.max(...rows.map(([k]) => k.length));
  return rows.map(([k, v]) => `${k.padEnd(width)}  ${v}`).join('\n');
}
