// The peer benchmarks of ../shared/peers (bare Koa routes, Lighthouse CI server), used as they
// are: ../shared is read-only, so they are copied to .bench-peers/ (git-ignored) and installed
// there with `npm ci` once (about two minutes: two native modules build from source). Their own
// load generator (lib.mjs `load`: autocannon 9, 2 s warm-up, 10 s window, 50 connections, own
// percentiles from per-response timings, re-measured when other work shared the window) then
// measures every case of bench:deploys, sitehealth's included, so the figures compare.

import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { ROOT } from './harness.ts';

export const PEERS_SOURCE = path.resolve(ROOT, '..', 'shared', 'peers');
export const PEERS_DIR = path.join(ROOT, '.bench-peers');

/** What `load` reports (lib.mjs `summarize`, plus CPU and quiet-machine notes). */
export interface PeerLoad {
  req_per_s: number;
  ok_per_s: number;
  p50_ms: number;
  p90_ms: number;
  p99_ms: number;
  max_ms: number;
  requests: number;
  ok: number;
  non2xx: number;
  errors: number;
  timeouts: number;
  status_codes: Record<string, number>;
  cpu: Record<string, number | null>;
  quiet: { idle_before_cores: number; waited_s: number };
  attempt: number;
}

export interface PeerServer {
  pid: number;
  port: number;
  info: Record<string, unknown>;
  stop(): Promise<void>;
}

export interface PeerLib {
  load(opts: { url: string; method?: string; headers?: Record<string, string>; makeBody?: () => string; pids?: Record<string, number>; beforeAttempt?: (attempt: number) => Promise<void> }): Promise<PeerLoad>;
  startServer(script: string, args?: string[], opts?: { readyTimeoutMs?: number }): Promise<PeerServer>;
  resetDatabase(name: string): Promise<void>;
  checkpoint(): Promise<void>;
  withClient<T>(db: string, fn: (c: { query(sql: string): Promise<{ rows: Array<Record<string, unknown>> }> }) => Promise<T>): Promise<T>;
  pgUrl(db: string): string;
  pgSettings(): Promise<Record<string, string>>;
  versions(names: string[]): Record<string, string | null>;
  DURATION_S: number;
  WARMUP_S: number;
  CONNECTIONS: number;
}

export interface PeerSchema {
  makeDeployFactory(opts?: { hotKeys?: number }): () => string;
}

/** Copies the peers (when they changed) and installs them (when not yet installed). */
export function preparePeers(): void {
  if (!fs.existsSync(PEERS_SOURCE)) throw new Error(`${PEERS_SOURCE} not found: bench:deploys needs ../shared/peers beside the repository`);
  fs.mkdirSync(PEERS_DIR, { recursive: true });
  let changed = false;
  for (const name of fs.readdirSync(PEERS_SOURCE)) {
    if (name === 'node_modules') continue;
    const from = path.join(PEERS_SOURCE, name);
    const to = path.join(PEERS_DIR, name);
    if (fs.statSync(from).isFile() && (!fs.existsSync(to) || !fs.readFileSync(from).equals(fs.readFileSync(to)))) {
      fs.copyFileSync(from, to);
      changed = changed || name.startsWith('package');
    }
  }
  // The SQLite twin of their pg-tx-job route sits beside their scripts (it imports lib.mjs).
  for (const extra of fs.readdirSync(path.join(ROOT, 'bench', 'peers'))) {
    fs.copyFileSync(path.join(ROOT, 'bench', 'peers', extra), path.join(PEERS_DIR, extra));
  }
  if (changed || !fs.existsSync(path.join(PEERS_DIR, 'node_modules', 'autocannon'))) {
    console.log('installing the peer benchmarks in .bench-peers (npm ci; about two minutes the first time)');
    execFileSync('npm', ['ci', '--no-audit', '--no-fund'], { cwd: PEERS_DIR, stdio: 'inherit' });
  }
}

export async function importPeers(): Promise<{ lib: PeerLib; schema: PeerSchema }> {
  const lib = (await import(pathToFileURL(path.join(PEERS_DIR, 'lib.mjs')).href)) as PeerLib;
  const schema = (await import(pathToFileURL(path.join(PEERS_DIR, 'schema.mjs')).href)) as PeerSchema;
  return { lib, schema };
}
