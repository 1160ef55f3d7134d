import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import crypto from 'node:crypto';
import knexFactory from 'knex';
import { createDb, type Db, migrateLatest } from '../../core/db/index.ts';

// Rendered checks (RENDER_CHECKS=auto or on) start a browser for every page of every check, at
// seconds a page. Tests render only where they ask to (test/checks-render.test.ts sets `on`);
// every other check in the suite, and the worker processes tests start, judge HTML alone.
process.env.RENDER_CHECKS ??= 'off';
// Webhook signing secrets, like every stored credential, are sealed with SECRETS_KEY (README,
// Configuration): the servers, workers and CLI runs of one test process share a key made for it.
// A test of a server without one passes SECRETS_KEY: ''.
process.env.SECRETS_KEY ??= crypto.randomBytes(32).toString('base64');

export interface TestDatabase {
  /** `sqlite` or `postgres`, for test names. */
  engine: 'sqlite' | 'postgres';
  /** A DATABASE_URL a child process can use to reach the same database. */
  url: string;
  /** Creates a fresh, migrated database and returns its URL. */
  create(): Promise<string>;
  /** Drops every database this helper created. */
  cleanup(): Promise<void>;
}

/**
 * The engines every suite runs on: SQLite always, PostgreSQL when TEST_DATABASE_URL is
 * set (CI sets it). Each `create()` makes an isolated database so files can run in any order.
 */
export function engines(): Array<'sqlite' | 'postgres'> {
  return process.env.TEST_DATABASE_URL ? ['sqlite', 'postgres'] : ['sqlite'];
}

const created: Array<{ engine: 'sqlite' | 'postgres'; name: string }> = [];

export async function freshDatabaseUrl(engine: 'sqlite' | 'postgres'): Promise<string> {
  if (engine === 'sqlite') {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'sitehealth-test-'));
    created.push({ engine, name: dir });
    return `sqlite:${path.join(dir, 'test.db')}`;
  }
  const admin = process.env.TEST_DATABASE_URL;
  if (!admin) throw new Error('TEST_DATABASE_URL is not set');
  const name = `sh_test_${crypto.randomBytes(6).toString('hex')}`;
  const k = knexFactory({ client: 'pg', connection: admin, pool: { min: 0, max: 1 } });
  try {
    await k.raw(`CREATE DATABASE ${name}`);
  } finally {
    await k.destroy();
  }
  created.push({ engine, name });
  const u = new URL(admin);
  u.pathname = `/${name}`;
  return u.toString();
}

/** A fresh, migrated database and a Knex handle on it. */
export async function freshDb(engine: 'sqlite' | 'postgres'): Promise<{ db: Db; url: string }> {
  const url = await freshDatabaseUrl(engine);
  const db = createDb(url);
  await migrateLatest(db);
  return { db, url };
}

/** Removes every database made by this process; call from an `after` hook. */
export async function dropCreatedDatabases(): Promise<void> {
  while (created.length) {
    const c = created.pop()!;
    if (c.engine === 'sqlite') {
      fs.rmSync(c.name, { recursive: true, force: true });
      continue;
    }
    const k = knexFactory({ client: 'pg', connection: process.env.TEST_DATABASE_URL!, pool: { min: 0, max: 1 } });
    try {
      await k.raw(`DROP DATABASE IF EXISTS ${c.name} WITH (FORCE)`);
    } finally {
      await k.destroy();
    }
  }
}
