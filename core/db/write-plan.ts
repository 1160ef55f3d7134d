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
//   carry the plans of many concurrent callers at once: one round trip for all of them;
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

function checkShape(shape: PlanShape): void {
  for (const [name, step] of Object.entries(shape.steps)) {
    for (const n of [name, step.table, ...step.columns]) if (!SQL_NAME.test(n)) throw new Error(`${shape.name}: not an SQL name: ${n}`);
    if (!step.columns.includes('id')) throw new Error(`${shape.name}.${name}: a step's columns include id`);
    for (const dep of step.after ?? []) if (!(dep in shape.steps) || Object.keys(shape.steps).indexOf(dep) >= Object.keys(shape.steps).indexOf(name)) throw new Error(`${shape.name}.${name}: ${dep} is not an earlier step`);
  }
}

// ---------------------------------------------------------------------------------------------
// PostgreSQL: the whole plan, for any number of instances, as one statement. The instances
// arrive as one JSON array (one object per instance, one member per step, each a row keyed by
// column), and each step reads its rows with jsonb_populate_record against its own table's row
// type, so every value is typed as its column is and nothing is positional.

const pgStatements = new WeakMap<PlanShape, string>();

function pgStatement(shape: PlanShape): string {
  let sql = pgStatements.get(shape);
  if (sql !== undefined) return sql;
  checkShape(shape);
  const steps = Object.entries(shape.steps);
  const member = (step: string) => `i.e -> '${step}'`;
  const wentIn = (step: string) => `(${member(step)} ->> 'id') IN (SELECT id::text FROM s_${step})`;
  const ctes = steps.map(([name, step]) => {
    const conditions = [`${member(name)} IS NOT NULL`, ...(step.after ?? []).map(wentIn)];
    if (step.onlyIf) conditions.push(`(${step.onlyIf.replace(ROW_VALUE, 'r.$1')})`);
    return `s_${name} AS (
  INSERT INTO ${step.table} (${step.columns.join(', ')})
  SELECT ${step.columns.map((c) => `r.${c}`).join(', ')}
  FROM input i CROSS JOIN LATERAL jsonb_populate_record(NULL::${step.table}, ${member(name)}) r
  WHERE ${conditions.join(' AND ')}
  ORDER BY i.ord${step.skipOnConflict ? `\n  ON CONFLICT ${step.skipOnConflict} DO NOTHING` : ''}
  RETURNING id
)`;
  });
  sql = `WITH input AS (SELECT e, ord FROM jsonb_array_elements(?::jsonb) WITH ORDINALITY AS t(e, ord)),
${ctes.join(',\n')}
SELECT i.ord, ${steps.map(([name]) => `COALESCE(${wentIn(name)}, false) AS ${name}`).join(', ')}
FROM input i`;
  pgStatements.set(shape, sql);
  return sql;
}

async function runOnPostgres(db: DbOrTrx, shape: PlanShape, instances: readonly PlanRows[]): Promise<Inserted[]> {
  const rows = await runSql<Record<string, unknown>>(db, pgStatement(shape), [JSON.stringify(instances)], { prepared: `plan_${shape.name}` });
  const byOrd = new Map(rows.map((r) => [Number(r.ord), r]));
  return instances.map((_, i) => {
    const row = byOrd.get(i + 1)!;
    return new Set(Object.keys(shape.steps).filter((step) => row[step] === true));
  });
}

// ---------------------------------------------------------------------------------------------
// SQLite: step by step in a transaction.

interface SqliteStepSql {
  /** INSERT of `n` rows (VALUES form), when the step has no condition. */
  values(n: number): string;
  /** INSERT ... SELECT of one row with its condition, and the row values the condition reads. */
  conditional?: { sql: string; reads: string[] };
  /** Whether the statement says which row went in (RETURNING id). */
  returns: boolean;
}

const sqliteSteps = new WeakMap<PlanStep, SqliteStepSql>();

function sqliteStep(step: PlanStep): SqliteStepSql {
  let s = sqliteSteps.get(step);
  if (s) return s;
  const head = `INSERT INTO ${step.table} (${step.columns.join(', ')})`;
  const placeholders = `${step.columns.map(() => '?').join(', ')}`;
  const tail = step.skipOnConflict ? ` ON CONFLICT ${step.skipOnConflict} DO NOTHING RETURNING id` : '';
  const returns = Boolean(step.skipOnConflict || step.onlyIf);
  s = { values: (n) => `${head} VALUES ${Array.from({ length: n }, () => `(${placeholders})`).join(', ')}${tail}`, returns };
  if (step.onlyIf) {
    const reads: string[] = [];
    const condition = step.onlyIf.replace(ROW_VALUE, (_, column: string) => {
      reads.push(column);
      return '?';
    });
    // The WHERE also keeps SQLite from reading ON CONFLICT as a join's ON.
    s.conditional = { sql: `${head} SELECT ${placeholders} WHERE ${condition}${tail || ' RETURNING id'}`, reads };
  }
  sqliteSteps.set(step, s);
  return s;
}

async function runOnSqlite(trx: Knex.Transaction, shape: PlanShape, rows: PlanRows): Promise<Inserted> {
  const inserted = new Set<string>();
  const due = (name: string) => rows[name] !== undefined && (shape.steps[name].after ?? []).every((dep) => inserted.has(dep));
  const steps = Object.entries(shape.steps);
  for (let i = 0; i < steps.length; i++) {
    const [name, step] = steps[i];
    if (!due(name)) continue;
    const row = rows[name]!;
    const sql = sqliteStep(step);
    if (sql.conditional) {
      const values = [...step.columns.map((c) => row[c]), ...sql.conditional.reads.map((c) => row[c])];
      if ((await runSql(trx, sql.conditional.sql, values)).length > 0) inserted.add(name);
      continue;
    }
    if (sql.returns) {
      if ((await runSql(trx, sql.values(1), step.columns.map((c) => row[c]))).length > 0) inserted.add(name);
      continue;
    }
    // Rows of the same table that follow, with nothing to decide, go in the same statement
    // (which inserts all of them or fails).
    const group = [name];
    inserted.add(name);
    while (i + 1 < steps.length) {
      const [next, nextStep] = steps[i + 1];
      if (nextStep.table !== step.table || nextStep.onlyIf || nextStep.skipOnConflict || nextStep.columns.join() !== step.columns.join()) break;
      i++;
      if (!due(next)) continue;
      group.push(next);
      inserted.add(next);
    }
    await runSql(trx, sql.values(group.length), group.flatMap((g) => step.columns.map((c) => rows[g]![c])));
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
