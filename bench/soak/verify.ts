// What the soak asserts once the load stopped and the queue drained: read from the database, the
// HTTPS receiver's record of what arrived, the load's ledger and samples, and the workers' logs.
import fs from 'node:fs';
import type { Db } from '../../core/db/index.ts';
import type { Received } from '../../test/support/https-receiver.ts';
import type { LoadResult } from './load.ts';

export interface Check {
  name: string;
  ok: boolean;
  /** One line per figure or problem. */
  details: string[];
}

export interface DrainState {
  checksOpen: number;
  crawlsOpen: number;
  eventsUndispatched: number;
  messagesPending: number;
  jobsOpen: number;
}

export async function drainState(db: Db, workspaceId: string): Promise<DrainState> {
  const count = async (q: Promise<unknown>) => Number(((await q) as Array<{ n: number | string }>)[0].n);
  return {
    checksOpen: await count(db('site_checks').where({ workspace_id: workspaceId }).whereIn('state', ['queued', 'running']).count({ n: '*' })),
    crawlsOpen: await count(db('site_crawls').where({ workspace_id: workspaceId }).whereIn('state', ['queued', 'running']).count({ n: '*' })),
    eventsUndispatched: await count(db('events').where({ workspace_id: workspaceId }).whereNull('dispatched_at').count({ n: '*' })),
    messagesPending: await count(db('webhook_messages').where({ workspace_id: workspaceId, state: 'pending' }).count({ n: '*' })),
    jobsOpen: await count(db('jobs').whereIn('state', ['queued', 'running']).whereNot('kind', 'maintenance').count({ n: '*' })),
  };
}

export function drained(s: DrainState): boolean {
  return s.checksOpen + s.crawlsOpen + s.eventsUndispatched + s.messagesPending + s.jobsOpen === 0;
}

/** 1. Every acknowledged deploy exists exactly once, under the id it was acknowledged with. */
export async function checkDeploys(db: Db, workspaceId: string, load: LoadResult): Promise<Check & { unacknowledged: number }> {
  const rows = (await db('deploys').where({ workspace_id: workspaceId }).select('id', 'environment', 'commit_sha')) as Array<{ id: string; environment: string; commit_sha: string }>;
  const byKey = new Map<string, string[]>();
  for (const r of rows) {
    const k = `${r.environment}:${r.commit_sha}`;
    byKey.set(k, [...(byKey.get(k) ?? []), r.id]);
  }
  const problems: string[] = [];
  for (const [k, ids] of byKey) if (ids.length > 1) problems.push(`${k} stored ${ids.length} times: ${ids.join(', ')}`);
  let missing = 0;
  for (const [k, a] of load.ledger) {
    const ids = byKey.get(k);
    if (!ids) {
      missing++;
      if (problems.length < 20) problems.push(`acknowledged ${k} (${a.id}) is not in the database`);
    } else if (!ids.includes(a.id)) {
      problems.push(`acknowledged ${k} as ${a.id}, stored as ${ids.join(', ')}`);
    }
    if (a.otherIds.length) problems.push(`${k} acknowledged under several ids: ${[a.id, ...a.otherIds].join(', ')}`);
  }
  // deploy.recorded fires when a deploy is created, never on an update: one per deploy.
  const recorded = (await db('events').where({ workspace_id: workspaceId, type: 'deploy.recorded' }).select('data')) as Array<{ data: string }>;
  const eventsPerDeploy = new Map<string, number>();
  for (const e of recorded) {
    const id = (JSON.parse(e.data) as { deploy: { id: string } }).deploy.id;
    eventsPerDeploy.set(id, (eventsPerDeploy.get(id) ?? 0) + 1);
  }
  const wrongEvents = rows.filter((r) => eventsPerDeploy.get(r.id) !== 1);
  if (wrongEvents.length) problems.push(`${wrongEvents.length} deploys without exactly one deploy.recorded event: ${wrongEvents.slice(0, 5).map((r) => `${r.id} (${eventsPerDeploy.get(r.id) ?? 0})`).join(', ')}`);
  const unacknowledged = [...byKey.keys()].filter((k) => !load.ledger.has(k)).length;
  const acks = [...load.ledger.values()].reduce((n, a) => n + a.acks, 0);
  return {
    name: '1. every acknowledged deploy exists exactly once',
    ok: problems.length === 0,
    unacknowledged,
    details: [
      `${load.ledger.size} distinct deploys acknowledged (${acks} 2xx answers to POST /v1/deploys), ${rows.length} rows in the database, ${missing} missing, ${unacknowledged} stored without an acknowledgement (answered 503 or timed out after the commit)`,
      ...problems.slice(0, 20),
    ],
  };
}

/**
 * 2. Every production deploy's newest check and crawl finished; nothing left queued or running;
 * and no deploy has more checks or crawls than its creation plus the requests that moved its time.
 */
export async function checkRuns(db: Db, workspaceId: string, load: LoadResult): Promise<Check & { checks: number; crawls: number }> {
  const movesById = new Map([...load.ledger.values()].map((a) => [a.id, a.moves]));
  const deploys = (await db('deploys').where({ workspace_id: workspaceId, environment: 'production' }).select('id')) as Array<{ id: string }>;
  const problems: string[] = [];
  const tally = { checks: 0, crawls: 0 };
  for (const table of ['site_checks', 'site_crawls'] as const) {
    const rows = (await db(table).where({ workspace_id: workspaceId }).select('id', 'deploy_id', 'state', 'error', 'created_at')) as Array<{ id: string; deploy_id: string | null; state: string; error: string | null; created_at: number }>;
    tally[table === 'site_checks' ? 'checks' : 'crawls'] = rows.length;
    const newest = new Map<string, (typeof rows)[number]>();
    for (const r of rows) {
      if (!r.deploy_id) continue;
      const prev = newest.get(r.deploy_id);
      if (!prev || Number(r.created_at) > Number(prev.created_at) || (Number(r.created_at) === Number(prev.created_at) && r.id > prev.id)) newest.set(r.deploy_id, r);
    }
    const states = new Map<string, number>();
    for (const r of rows) states.set(r.state, (states.get(r.state) ?? 0) + 1);
    problems.push(...[...states].filter(([s]) => s !== 'finished').map(([s, n]) => `${n} ${table} ${s}`));
    for (const r of rows.filter((x) => x.state === 'failed').slice(0, 5)) problems.push(`${table} ${r.id} failed: ${r.error}`);
    const perDeploy = new Map<string, number>();
    for (const r of rows) if (r.deploy_id) perDeploy.set(r.deploy_id, (perDeploy.get(r.deploy_id) ?? 0) + 1);
    const extra = [...perDeploy].filter(([id, n]) => n > 1 + (movesById.get(id) ?? 0));
    if (extra.length) problems.push(`${extra.length} deploys with more ${table} than 1 + the moves of their time: ${extra.slice(0, 5).map(([id, n]) => `${id} ${n} (moves ${movesById.get(id) ?? 0})`).join(', ')}`);
    const none = deploys.filter((d) => !newest.has(d.id));
    if (none.length) problems.push(`${none.length} production deploys without any ${table}: ${none.slice(0, 5).map((d) => d.id).join(', ')}`);
  }
  return {
    name: "2. every production deploy's check and crawl finished",
    ok: problems.length === 0,
    ...tally,
    details: [`${deploys.length} production deploys, ${tally.checks} site checks, ${tally.crawls} crawls`, ...problems],
  };
}

interface MessageRow {
  id: string;
  event_id: string | null;
  delivery_key: string;
  state: string;
}

interface AttemptRow {
  message_id: string;
  delivery_key: string;
  attempt: number;
  origin: string;
  status: string;
  created_at: number;
}

/** 3. Every event reached the receiver (a 2xx answer) at least once; attempts numbered 1..n per delivery key. */
export async function checkDeliveries(db: Db, workspaceId: string, received: Received[], unverified: number): Promise<Check & { events: number; attempts: number; retries: number }> {
  const events = (await db('events').where({ workspace_id: workspaceId }).select('id', 'type')) as Array<{ id: string; type: string }>;
  const messages = (await db('webhook_messages').where({ workspace_id: workspaceId }).select('id', 'event_id', 'delivery_key', 'state')) as MessageRow[];
  const attempts = (await db('webhook_deliveries as d').join('webhook_messages as m', 'm.id', 'd.message_id').where('m.workspace_id', workspaceId).select('d.message_id', 'd.delivery_key', 'd.attempt', 'd.origin', 'd.status', 'd.created_at')) as AttemptRow[];
  const problems: string[] = [];

  const deliveredEvents = new Set<string>();
  const keysAnswered2xx = new Set<string>();
  for (const r of received) {
    if (r.status === undefined || r.status < 200 || r.status >= 300) continue;
    keysAnswered2xx.add(r.headers['webhook-id']);
    try {
      deliveredEvents.add((JSON.parse(r.body) as { id: string }).id);
    } catch {
      problems.push(`a delivery body is not JSON: ${r.body.slice(0, 100)}`);
    }
  }
  const notDelivered = events.filter((e) => !deliveredEvents.has(e.id));
  if (notDelivered.length) problems.push(`${notDelivered.length} of ${events.length} events never answered 2xx by the receiver: ${notDelivered.slice(0, 5).map((e) => `${e.type} ${e.id}`).join(', ')}`);
  const messagesByEvent = new Map<string, number>();
  for (const m of messages) if (m.event_id) messagesByEvent.set(m.event_id, (messagesByEvent.get(m.event_id) ?? 0) + 1);
  const noMessage = events.filter((e) => !messagesByEvent.has(e.id));
  if (noMessage.length) problems.push(`${noMessage.length} events without a message: ${noMessage.slice(0, 5).map((e) => e.id).join(', ')}`);
  const twice = [...messagesByEvent].filter(([, n]) => n > 1);
  if (twice.length) problems.push(`${twice.length} events with more than one message for the one webhook`);
  const states = new Map<string, number>();
  for (const m of messages) states.set(m.state, (states.get(m.state) ?? 0) + 1);
  for (const [s, n] of states) if (s !== 'delivered') problems.push(`${n} messages ${s}`);
  const unseen = messages.filter((m) => m.state === 'delivered' && !keysAnswered2xx.has(m.delivery_key));
  if (unseen.length) problems.push(`${unseen.length} messages recorded delivered whose webhook-id the receiver never answered 2xx: ${unseen.slice(0, 3).map((m) => m.delivery_key).join(', ')}`);
  if (unverified) problems.push(`${unverified} deliveries whose signature did not verify`);

  const byKey = new Map<string, number[]>();
  for (const a of attempts) byKey.set(a.delivery_key, [...(byKey.get(a.delivery_key) ?? []), Number(a.attempt)]);
  const gaps = [...byKey].filter(([, ns]) => ns.sort((x, y) => x - y).some((n, i) => n !== i + 1));
  for (const [k, ns] of gaps.slice(0, 5)) problems.push(`delivery key ${k}: attempts ${ns.join(',')} (expected 1..${ns.length})`);
  if (gaps.length > 5) problems.push(`... ${gaps.length} delivery keys with gaps in all`);
  const retries = attempts.filter((a) => a.origin === 'retry').length;
  const receivedByKey = new Map<string, number>();
  for (const r of received) receivedByKey.set(r.headers['webhook-id'], (receivedByKey.get(r.headers['webhook-id']) ?? 0) + 1);
  const resent = [...receivedByKey].filter(([k, n]) => n > (byKey.get(k)?.length ?? 0)).length;
  return {
    name: '3. every event delivered at least once; attempts numbered 1..n',
    ok: problems.length === 0,
    events: events.length,
    attempts: attempts.length,
    retries,
    details: [
      `${events.length} events, ${messages.length} messages, ${attempts.length} attempts recorded (${retries} scheduled retries), ${received.length} requests received; ${resent} delivery keys arrived more often than attempts were recorded (sent, then the result could not be recorded: at least once)`,
      ...problems,
    ],
  };
}

/** Log lines of a process (JSON lines; anything else is ignored). */
export function logLines(file: string): Array<Record<string, unknown>> {
  if (!fs.existsSync(file)) return [];
  const out: Array<Record<string, unknown>> = [];
  for (const line of fs.readFileSync(file, 'utf8').split('\n')) {
    if (!line.startsWith('{')) continue;
    try {
      out.push(JSON.parse(line) as Record<string, unknown>);
    } catch {
      // not a log line
    }
  }
  return out;
}

export interface KilledJob {
  id: string;
  kind: string;
  attempts: number;
  leaseExpiresAt: number;
}

/**
 * 6. Nothing ran twice at once. Four independent witnesses, each able to see a double run:
 * - the receiver: a delivery key arriving again while an earlier request with it was still
 *   unanswered (it answers after a delay, so overlapping sends overlap there);
 * - the attempts: an automatic attempt recorded after a successful one (a second run of a
 *   delivery job checks for earlier attempts first, so only one running at the same time adds one);
 * - the workers: a `lease_lost` or `stale` job outcome (the queue handed a job this worker was
 *   still running to another one);
 * - the jobs table: a lease recovered from a worker that was not the killed one, and a killed
 *   worker's job started again before its lease ran out.
 */
export async function checkNoDoubleRuns(
  db: Db,
  o: { received: Received[]; workerLogs: string[]; killedWorkerPid: number | null; killedJobs: KilledJob[] },
): Promise<Check & { recovered: number }> {
  const problems: string[] = [];
  const byKey = new Map<string, Received[]>();
  for (const r of o.received) byKey.set(r.headers['webhook-id'], [...(byKey.get(r.headers['webhook-id']) ?? []), r]);
  let overlaps = 0;
  for (const [k, rs] of byKey) {
    rs.sort((a, b) => a.at - b.at);
    for (let i = 1; i < rs.length; i++) {
      const prev = rs[i - 1];
      if (prev.answeredAt === undefined || rs[i].at < prev.answeredAt) {
        overlaps++;
        if (overlaps <= 5) problems.push(`delivery key ${k} arrived at ${rs[i].at} while its request of ${prev.at} was unanswered`);
      }
    }
  }

  const attempts = (await db('webhook_deliveries').whereIn('origin', ['event', 'retry']).select('message_id', 'attempt', 'status').orderBy(['message_id', 'attempt'])) as Array<{ message_id: string; attempt: number; status: string }>;
  let afterSuccess = 0;
  for (let i = 1; i < attempts.length; i++) {
    if (attempts[i].message_id === attempts[i - 1].message_id && attempts[i - 1].status === 'success') afterSuccess++;
  }
  if (afterSuccess) problems.push(`${afterSuccess} automatic attempts recorded after a successful one`);

  for (const file of o.workerLogs) {
    const bad = logLines(file).filter((l) => l.outcome === 'lease_lost' || l.outcome === 'stale');
    for (const l of bad.slice(0, 5)) problems.push(`${file.split('/').pop()}: job ${String(l.outcome)} (${String(l.kind)} ${String(l.jobId)}, attempt ${String(l.attempt)})`);
    if (bad.length > 5) problems.push(`... ${bad.length} such lines in ${file}`);
  }

  const recovered = (await db('jobs').where('last_error', 'like', 'lease expired: worker %').select('id', 'kind', 'state', 'last_error')) as Array<{ id: string; kind: string; state: string; last_error: string }>;
  const fromOthers = recovered.filter((j) => o.killedWorkerPid === null || !j.last_error.includes(`/${o.killedWorkerPid}/`));
  for (const j of fromOthers.slice(0, 5)) problems.push(`job ${j.kind} ${j.id} recovered from a live worker: ${j.last_error}`);

  for (const k of o.killedJobs) {
    const j = (await db('jobs').where({ id: k.id }).first('state', 'attempts', 'started_at')) as { state: string; attempts: number; started_at: number } | undefined;
    if (!j) continue;
    if (Number(j.attempts) > k.attempts && Number(j.started_at) < k.leaseExpiresAt) {
      problems.push(`job ${k.kind} ${k.id} of the killed worker started again at ${j.started_at}, before its lease ran out at ${k.leaseExpiresAt}`);
    }
    if (j.state !== 'done') problems.push(`job ${k.kind} ${k.id} of the killed worker ended ${j.state}`);
  }
  return {
    name: '6. nothing ran twice at once',
    ok: problems.length === 0,
    recovered: recovered.length,
    details: [
      `${byKey.size} delivery keys at the receiver, ${overlaps} overlapping sends; ${afterSuccess} attempts after a success; ${recovered.length} jobs recovered after their lease expired (${o.killedJobs.length} held by the killed worker when it died)`,
      ...problems,
    ],
  };
}

/**
 * 7. Nothing the API acknowledged is missing from the request log (docs/api.md#request-logs): every 2xx the
 * clients got is a row, however the database came and went; and no more rows than answers.
 */
export async function checkRequestLog(db: Db, workspaceId: string, load: LoadResult): Promise<Check> {
  const rows = (await db('request_logs')
    .where({ workspace_id: workspaceId })
    .where('created_at', '>=', load.startedAt)
    // The set-up's webhook creation answers just before the load starts, but its row is written
    // when the response has gone out, which can be a moment after the load's start.
    .whereNot((q) => q.where({ method: 'POST', route: '/v1/webhooks' }))
    .select(db.raw('status_code, count(*) AS n'))
    .groupBy('status_code')) as Array<{ status_code: number; n: number | string }>;
  const logged = new Map(rows.map((r) => [Number(r.status_code), Number(r.n)]));
  const answered = new Map<number, number>();
  for (const x of load.samples) if (typeof x.outcome === 'number') answered.set(x.outcome, (answered.get(x.outcome) ?? 0) + 1);
  const problems: string[] = [];
  for (const [status, n] of answered) {
    const got = logged.get(status) ?? 0;
    // 2xx: all of them (the request authenticated, so its workspace is known). Errors: a request
    // the database failed before authentication finished names no known workspace.
    if (status < 300 ? got !== n : got > n) problems.push(`${status}: ${n} answered, ${got} in the request log`);
  }
  for (const [status, n] of logged) if (!answered.has(status)) problems.push(`${status}: none answered, ${n} in the request log`);
  const ok2xx = [...answered].filter(([st]) => st < 300).reduce((a, [, n]) => a + n, 0);
  const log2xx = [...logged].filter(([st]) => st < 300).reduce((a, [, n]) => a + n, 0);
  return {
    name: '7. every acknowledged request is in the request log',
    ok: problems.length === 0,
    details: [`${log2xx} of ${ok2xx} 2xx answers logged; ${logged.get(503) ?? 0} of ${answered.get(503) ?? 0} 503s`, ...problems],
  };
}
