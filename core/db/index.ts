// The database: connections, transactions, migrations, models and the shared SQL helpers.
export { createDb, bindModels, isPostgres, dbClientOf, type Db, type DbOrTrx, type DbOptions } from './connection.ts';
export { withTransaction, withGroupedTransaction } from './transaction.ts';
export { isDatabaseUnavailable, isRetryableConflict } from './unavailable.ts';
export { migrateLatest } from './migrate.ts';
export { runSql, type RunOptions } from './statements.ts';
export { withConnection, connectionOf, afterCommit, poolOf, missingKnexInternals, INSTALLED_KNEX_VERSION } from './knex-adapter.ts';
export { StatementBatcher, type BatchOptions } from './batch.ts';
export { runPlan, runPlansOnPostgres, type PlanShape, type PlanStep, type PlanRows, type PlannedRow, type Inserted } from './write-plan.ts';
export { applyRetention, DAY_MS, HOUR_MS, type RetentionRule, type RetentionResult } from './retention.ts';
export { isForeignKeyViolation, isUniqueViolation } from './unique.ts';
export { afterKeyset } from './keyset.ts';
export * from './models/index.ts';
