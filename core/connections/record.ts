import { changesFromFilePatches, MAX_FILES_PER_DEPLOY, type FilePatch } from '@sitehealth/sdk/signals';
import { Connection, Deploy, RepositoryDelivery, type Db } from '../db/index.ts';
import type { Schemas } from '../contract/index.ts';
import { recordDeploy, type ScheduleDelays } from '../deploys/index.ts';
import { enqueue } from '../jobs/index.ts';
import type { ConnectionSettings } from './connections.ts';
import { openSecrets } from './connections.ts';
import type { DeliveryPayload } from './hooks.ts';
import { HostError, hostClient, type HostClient } from './hosts.ts';
import { clearHostError, markBroken, recordHostError } from './host-state.ts';

// The repository_deploy job: one queued delivery into a deploy with source `github` or `gitlab`,
// its changes read from the host's compare API since the previous deploy of the environment.

interface ReadChanges {
  changes: Schemas['Change'][];
  truncated: boolean;
  note: string | null;
}

const short = (sha: string) => sha.slice(0, 7);
const hostName = (c: Connection) => (c.provider === 'github' ? 'GitHub' : 'GitLab');

/**
 * Files of each commit in turn (the fallback when a compare is cut, and a first deploy's own
 * commits), within the deploy's 500-change cap. Merge commits are skipped: their files are the
 * other commits'. A path met again is one change fed by every patch.
 */
async function filesCommitByCommit(client: HostClient, commits: readonly string[]): Promise<{ files: FilePatch[]; cut: boolean }> {
  const files: FilePatch[] = [];
  const paths = new Set<string>();
  let cut = false;
  for (const sha of commits) {
    const { files: own, parents, incomplete } = await client.commitFiles(sha, MAX_FILES_PER_DEPLOY + 1);
    if (parents > 1) continue;
    if (incomplete) cut = true;
    for (const f of own) {
      if (!paths.has(f.path) && paths.size > MAX_FILES_PER_DEPLOY) {
        cut = true;
        continue;
      }
      paths.add(f.path);
      files.push(f);
    }
  }
  return { files, cut };
}

function analysed(files: FilePatch[], cut: boolean, notes: string[]): ReadChanges {
  const result = changesFromFilePatches(files);
  const truncated = cut || result.totalFiles > MAX_FILES_PER_DEPLOY;
  if (result.totalFiles > MAX_FILES_PER_DEPLOY) notes.push(`${result.totalFiles} files changed; kept the ${MAX_FILES_PER_DEPLOY} that best explain a regression`);
  return { changes: result.changes, truncated, note: notes.length ? notes.join('; ') : null };
}

async function readChanges(c: Connection, client: HostClient, base: string | null, p: DeliveryPayload): Promise<ReadChanges> {
  if (base === null) {
    // A first deploy of the environment: the push's own commits (a deployment: its commit).
    const own = p.commits.length > 0 ? p.commits : [p.head];
    const { files, cut } = await filesCommitByCommit(client, own);
    return analysed(files, cut, cut ? [`${hostName(c)} listed only part of the files of the push's commits`] : []);
  }
  const compare = await client.compare(base, p.head);
  if (!compare.incomplete) return analysed(compare.files, false, []);
  // The compare was cut (GitHub: 300 files or 250 commits; GitLab: its diff limits): commit by commit.
  const commitsCut = compare.totalCommits > compare.commits.length;
  const { files, cut } = await filesCommitByCommit(client, compare.commits);
  const notes: string[] = [];
  if (commitsCut) notes.push(`${compare.totalCommits} commits since ${short(base)}; ${hostName(c)} listed the first ${compare.commits.length}, whose files are kept`);
  if (cut) notes.push(`${hostName(c)} listed only part of the files of some commits`);
  return analysed(files, commitsCut || cut, notes);
}

/** The commit the environment's previous deploy was of, or null for its first. */
async function previousCommit(db: Db, workspaceId: string, environment: string, head: string): Promise<string | null> {
  const prev = await Deploy.query(db)
    .where({ workspace_id: workspaceId, environment })
    .whereNot('commit_sha', head)
    .orderBy([
      { column: 'deployed_at', order: 'desc' },
      { column: 'id', order: 'desc' },
    ])
    .select('commit_sha')
    .first();
  return prev?.commit_sha ?? null;
}

export interface RecordOptions {
  delays: ScheduleDelays;
  /** The job's last attempt: a host still failing then is given up on, and the deploy recorded without changes. */
  lastAttempt: boolean;
  signal?: AbortSignal;
}

/**
 * Records the deploy of one delivery. At-least-once safe: a delivery already recorded is left
 * alone, and recording the same commit and environment again updates the one deploy.
 */
export async function recordFromDelivery(db: Db, deliveryId: string, s: ConnectionSettings, o: RecordOptions): Promise<{ deployId: string } | null> {
  const delivery = await RepositoryDelivery.query(db).findById(deliveryId);
  if (!delivery || delivery.state === 'recorded') return null;
  const c = await Connection.query(db).findById(delivery.connection_id);
  if (!c) return null;
  const p = JSON.parse(delivery.payload) as DeliveryPayload;
  const base = await previousCommit(db, c.workspace_id, p.environment, p.head);

  let read: ReadChanges;
  let hostFailed = false;
  if (c.state === 'broken') {
    read = { changes: [], truncated: false, note: `the connection is broken (${c.last_error ?? 'the host refused its token'}); give it a new token` };
  } else {
    const client = hostClient({ provider: c.provider, baseUrl: c.base_url, repository: c.repository, token: openSecrets(c, s.keyring).token, externalId: c.external_id }, { allowPrivateNetwork: s.allowPrivateNetwork, timeoutMs: s.timeoutMs, signal: o.signal });
    try {
      read = await readChanges(c, client, base, p);
    } catch (err) {
      const e = err instanceof HostError ? err : new HostError('other', String(err));
      if (e.kind === 'unavailable' && !o.lastAttempt) {
        await recordHostError(db, c.id, `${hostName(c)} did not answer the compare of ${short(p.head)}; retrying: ${e.message}`);
        throw e;
      }
      hostFailed = true;
      if (e.kind === 'auth') await markBroken(db, c, e.message);
      else await recordHostError(db, c.id, `${hostName(c)} compare of ${short(p.head)} failed: ${e.message}`);
      const reason =
        e.kind === 'not_found' && base !== null
          ? `the previous deploy's commit ${short(base)} is no longer in ${c.repository} (a force-push?), so there is nothing to compare with`
          : e.kind === 'auth'
            ? `${hostName(c)} refused the connection's token`
            : `${hostName(c)} did not answer: ${e.message}`;
      read = { changes: [], truncated: false, note: reason };
    }
  }

  const { deploy, scheduled } = await recordDeploy(
    db,
    c.workspace_id,
    { commitSha: p.head, environment: p.environment, ref: p.branch, ...(p.message !== null && { message: p.message.slice(0, 2000) }), changes: read.changes },
    o.delays,
    { source: c.provider, connectionId: c.id, changesTruncated: read.truncated, changesNote: read.note },
  );
  if (!hostFailed && c.state !== 'broken') await clearHostError(db, c.id);
  await RepositoryDelivery.query(db).findById(delivery.id).patch({ state: 'recorded', deploy_id: deploy.id });
  // The commit shows the check as pending from now.
  if (scheduled) await enqueue(db, 'commit_status', { checkId: scheduled.checkId }, { dedupeKey: `commit_status:${scheduled.checkId}:queued`, workspaceId: c.workspace_id });
  return { deployId: deploy.id };
}
