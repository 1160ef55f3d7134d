import type { Knex } from 'knex';
import { isPostgres, type DbOrTrx } from './connection.ts';
import { runSql } from './statements.ts';
import { withTransaction } from './transaction.ts';

// A write plan: the rows one change inserts into several tables, each table's part written by
// the domain that owns the table, put together by the domain that makes the change (for
// example a new deploy: core/deploys' row, core/checks' and core/crawls' queued runs, core/jobs'
// jobs, core/events' event). The plan is the one place such a rule is written; two executors run
// any plan:
//
// - on PostgreSQL, one statement (data-modifying CTEs), rendered from the plan's shape, that can
//   carry the plans of many concurrent callers at once: one round trip for all of them. Values
//   are bound by step and column name, never by a position someone must keep in order;
// - on SQLite, one statement per step inside the caller's transaction (which holds the write
//   lock from its start), rows of one table that follow each other going in one INSERT.
//
// Both executors apply the same conditions, so a plan gives the same rows on either engine.

export type PlannedRow = Record<string, unknown>;

/** One table's part of a plan: at most one row per plan. */
export interface PlanStep {
  table: string;
  /** The columns the row sets; one is `id`, the table's primary key. */
  columns: readonly string[];
  /** Columns every row of the step sets to the same value, written into the statement. */
  fixed?: Readonly<Record<string, string | number | null>>;
  /** Steps whose row must have gone in (in this plan) for this one to go in. */
  after?: readonly string[];
  /** An SQL condition the row must meet to go in; `:column` stands for the row's value of that column. */
  onlyIf?: string;
  /** `ON CONFLICT <target> DO NOTHING`: a conflicting row does not go in, and neither do the steps after it. */
  skipOnConflict?: string;
  /** Called for each row of this step that went in (e.g. to wake workers for a due job). */
  onInserted?: (db: DbOrTrx, row: PlannedRow) => void;
}

/** What a change can write, step by step in order; each instance gives rows for some of the steps. */
export interface PlanShape {
  /** Names the PostgreSQL statement (prepared once per connection). */
  name: string;
  steps: Readonly<Record<string, PlanStep>>;
}

/** One change's rows by step; a step without a row writes nothing. */
export type PlanRows = Readonly<Record<string, PlannedRow | undefined>>;

/** The steps whose row went in. */
export type Inserted = ReadonlySet<string>;

const SQL_NAME = /^[a-z_][a-z0-9_]*$/;
const ROW_VALUE = /(?<![:\w]):([a-z_][a-z0-9_]*)/g;

function literal(value: string | number | null): string {
  if (value === null) return 'NULL';
  if (typeof value === 'number') {
    if (!Number.isFinite(value)) throw new Error(`not a finite number: ${value}`);
    return String(value);
  }
  return `'${value.replace(/'/g, "''")}'`;
}

/** The columns a step inserts, and what each gets: a value of the row (`?`-style, by `bind`) or its fixed literal. */
function insertColumns(step: PlanStep, bind: (column: string) => string): { names: string; values: string } {
  const fixed = Object.entries(step.fixed ?? {});
  return {
    names: [...step.columns, ...fixed.map(([c]) => c)].join(', '),
    values: [...step.columns.map(bind), ...fixed.map(([, v]) => literal(v))].join(', '),
  };
}

function checkShape(shape: PlanShape): void {
  for (const [name, step] of Object.entries(shape.steps)) {
    for (const n of [name, step.table, ...step.columns, ...Object.keys(step.fixed ?? {})]) if (!SQL_NAME.test(n) || n.includes('__')) throw new Error(`${shape.name}: not an SQL name without __: ${n}`);
    if (!step.columns.includes('id')) throw new Error(`${shape.name}.${name}: a step's columns include id`);
    for (const dep of step.after ?? []) if (!(dep in shape.steps) || Object.keys(shape.steps).indexOf(dep) >= Object.keys(shape.steps).indexOf(name)) throw new Error(`${shape.name}.${name}: ${dep} is not an earlier step`);
  }
}

// ---------------------------------------------------------------------------------------------
// PostgreSQL: the whole plan, for any number of instances, as one statement. Each column of each
// step arrives as one array (one element per instance, NULL where an instance has no row for the
// step), typed as the table's column is: the types are read from the catalog once per process.
// (One JSON document instead, typed by jsonb_populate_record, cost PostgreSQL about 40 µs more
// per deploy just to parse: bench:deploys.)

const pgStatements = new WeakMap<PlanShape, Promise<string>>();

const columnAlias = (step: string, column: string) => `${step}__${column}`;

async function columnTypes(db: DbOrTrx, tables: string[]): Promise<Map<string, string>> {
  const rows = await runSql<{ tbl: string; col: string; type: string }>(
    db,
    `SELECT c.relname AS tbl, a.attname AS col, format_type(a.atttypid, a.atttypmod) AS type
     FROM pg_attribute a JOIN pg_class c ON c.oid = a.attrelid
     WHERE c.oid = ANY (SELECT to_regclass(t)::oid FROM unnest(?::text[]) AS t) AND a.attnum > 0 AND NOT a.attisdropped`,
    [tables],
  );
  return new Map(rows.map((r) => [`${r.tbl}.${r.col}`, r.type]));
}

async function renderPg(db: DbOrTrx, shape: PlanShape): Promise<string> {
  checkShape(shape);
  const steps = Object.entries(shape.steps);
  const types = await columnTypes(db, [...new Set(steps.map(([, step]) => step.table))]);
  const arrays: string[] = [];
  const aliases: string[] = [];
  for (const [name, step] of steps) {
    for (const column of step.columns) {
      const type = types.get(`${step.table}.${column}`);
      if (!type) throw new Error(`${shape.name}.${name}: ${step.table}.${column} is not a column`);
      arrays.push(`?::${type}[]`);
      aliases.push(columnAlias(name, column));
    }
  }
  const wentIn = (step: string) => `i.${columnAlias(step, 'id')} IN (SELECT id FROM s_${step})`;
  const ctes = steps.map(([name, step]) => {
    const conditions = [`i.${columnAlias(name, 'id')} IS NOT NULL`, ...(step.after ?? []).map(wentIn)];
    if (step.onlyIf) conditions.push(`(${step.onlyIf.replace(ROW_VALUE, (_, column: string) => `i.${columnAlias(name, column)}`)})`);
    const insert = insertColumns(step, (c) => `i.${columnAlias(name, c)}`);
    return `s_${name} AS (
  INSERT INTO ${step.table} (${insert.names})
  SELECT ${insert.values}
  FROM input i
  WHERE ${conditions.join(' AND ')}
  ORDER BY i.ord${step.skipOnConflict ? `\n  ON CONFLICT ${step.skipOnConflict} DO NOTHING` : ''}
  RETURNING id
)`;
  });
  return `WITH input AS (
  SELECT * FROM unnest(${arrays.join(', ')}) WITH ORDINALITY AS i(${aliases.join(', ')}, ord)
),
${ctes.join(',\n')}
SELECT i.ord, ${steps.map(([name]) => `COALESCE(${wentIn(name)}, false) AS ${name}`).join(', ')}
FROM input i`;
}

function pgStatement(db: DbOrTrx, shape: PlanShape): Promise<string> {
  let sql = pgStatements.get(shape);
  if (!sql) {
    pgStatements.set(shape, (sql = renderPg(db, shape)));
    sql.catch(() => pgStatements.delete(shape)); // e.g. the database was away: try again next time
  }
  return sql;
}

async function runOnPostgres(db: DbOrTrx, shape: PlanShape, instances: readonly PlanRows[]): Promise<Inserted[]> {
  const bindings: unknown[][] = [];
  for (const [name, step] of Object.entries(shape.steps)) {
    for (const column of step.columns) bindings.push(instances.map((rows) => rows[name]?.[column] ?? null));
  }
  const rows = await runSql<Record<string, unknown>>(db, await pgStatement(db, shape), bindings, { prepared: `plan_${shape.name}` });
  const byOrd = new Map(rows.map((r) => [Number(r.ord), r]));
  return instances.map((_, i) => {
    const row = byOrd.get(i + 1)!;
    return new Set(Object.keys(shape.steps).filter((step) => row[step] === true));
  });
}

// ---------------------------------------------------------------------------------------------
// SQLite: step by step in a transaction.

interface SqliteStepSql {
  /** `INSERT INTO table (columns)`: the same for every step of a table with the same columns. */
  head: string;
  /** This step's row in a VALUES list: placeholders for its values, literals for its fixed columns. */
  row: string;
  /** An INSERT ... SELECT of the row with its condition, and the row values the condition reads. */
  conditional?: { sql: string; reads: string[] };
  /** `ON CONFLICT ... DO NOTHING RETURNING id`, or nothing. */
  tail: string;
}

const sqliteSteps = new WeakMap<PlanStep, SqliteStepSql>();

function sqliteStep(step: PlanStep): SqliteStepSql {
  let s = sqliteSteps.get(step);
  if (s) return s;
  const insert = insertColumns(step, () => '?');
  const head = `INSERT INTO ${step.table} (${insert.names})`;
  const tail = step.skipOnConflict ? ` ON CONFLICT ${step.skipOnConflict} DO NOTHING RETURNING id` : '';
  s = { head, row: `(${insert.values})`, tail };
  if (step.onlyIf) {
    const reads: string[] = [];
    const condition = step.onlyIf.replace(ROW_VALUE, (_, column: string) => {
      reads.push(column);
      return '?';
    });
    // The WHERE also keeps SQLite from reading ON CONFLICT as a join's ON.
    s.conditional = { sql: `${head} SELECT ${insert.values} WHERE ${condition}${tail || ' RETURNING id'}`, reads };
  }
  sqliteSteps.set(step, s);
  return s;
}

/** Steps whose rows one INSERT can carry: same table and columns, nothing to decide per row. */
const groupable = (a: PlanStep, b: PlanStep) =>
  !b.onlyIf && !b.skipOnConflict && a.table === b.table && a.columns.join() === b.columns.join() && Object.keys(a.fixed ?? {}).join() === Object.keys(b.fixed ?? {}).join();

async function runOnSqlite(trx: Knex.Transaction, shape: PlanShape, rows: PlanRows): Promise<Inserted> {
  const inserted = new Set<string>();
  const due = (name: string) => rows[name] !== undefined && (shape.steps[name].after ?? []).every((dep) => inserted.has(dep));
  const steps = Object.entries(shape.steps);
  for (let i = 0; i < steps.length; i++) {
    const [name, step] = steps[i];
    if (!due(name)) continue;
    const row = rows[name]!;
    const sql = sqliteStep(step);
    const values = step.columns.map((c) => row[c]);
    if (sql.conditional) {
      if ((await runSql(trx, sql.conditional.sql, [...values, ...sql.conditional.reads.map((c) => row[c])])).length > 0) inserted.add(name);
      continue;
    }
    if (sql.tail) {
      if ((await runSql(trx, `${sql.head} VALUES ${sql.row}${sql.tail}`, values)).length > 0) inserted.add(name);
      continue;
    }
    // Rows of the same table that follow, with nothing to decide, go in the same statement
    // (which inserts all of them or fails).
    const group = [step];
    inserted.add(name);
    while (i + 1 < steps.length && groupable(step, steps[i + 1][1])) {
      const [next, nextStep] = steps[++i];
      if (!due(next)) continue;
      group.push(nextStep);
      values.push(...nextStep.columns.map((c) => rows[next]![c]));
      inserted.add(next);
    }
    await runSql(trx, `${sql.head} VALUES ${group.map((g) => sqliteStep(g).row).join(', ')}`, values);
  }
  return inserted;
}

function announceInserted(db: DbOrTrx, shape: PlanShape, rows: PlanRows, inserted: Inserted): void {
  for (const name of inserted) shape.steps[name].onInserted?.(db, rows[name]!);
}

/**
 * Runs one plan in `db`'s transaction (or one of its own), and says which steps' rows went in.
 */
export async function runPlan(db: DbOrTrx, shape: PlanShape, rows: PlanRows): Promise<Inserted> {
  const inserted = isPostgres(db) ? (await runOnPostgres(db, shape, [rows]))[0] : await withTransaction(db, (trx) => runOnSqlite(trx, shape, rows));
  announceInserted(db, shape, rows, inserted);
  return inserted;
}

/**
 * Runs the plans of many callers as one PostgreSQL statement, all or nothing: in the order given
 * (order them by what they lock, so two such statements cannot deadlock).
 */
export async function runPlansOnPostgres(db: DbOrTrx, shape: PlanShape, instances: readonly PlanRows[]): Promise<Inserted[]> {
  const inserted = await runOnPostgres(db, shape, instances);
  instances.forEach((rows, i) => announceInserted(db, shape, rows, inserted[i]));
  return inserted;
}
