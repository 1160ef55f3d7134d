import { Connection, Deploy, SiteCheck, type Db } from '../db/index.ts';
import type { Schemas } from '../contract/index.ts';
import type { ConnectionSettings } from './connections.ts';
import { openSecrets } from './connections.ts';
import { HostError, hostClient, type CommitStatus } from './hosts.ts';
import { markBroken, recordHostError } from './host-state.ts';

// The commit status of a deploy's site check (spec/connections.tsp): `sitehealth/<environment>`,
// pending while the check is queued or running, then success or failure by the connection's
// failOn, a description under 140 characters naming the worst finding, linking to the deploy.

const SEVERITY_RANK: Record<Schemas['Severity'], number> = { critical: 0, high: 1, medium: 2, low: 3 };
/** GitHub refuses descriptions of 140 characters or more. */
export const MAX_DESCRIPTION = 139;

function clip(text: string): string {
  return text.length <= MAX_DESCRIPTION ? text : `${text.slice(0, MAX_DESCRIPTION - 1)}…`;
}

function pathOf(url: string): string {
  try {
    const u = new URL(url);
    return `${u.pathname}${u.search}`;
  } catch {
    return url;
  }
}

/** The status a check stands for, as a connection with `failOn` reports it. */
export function statusOfCheck(check: SiteCheck, failOn: Schemas['Severity']): Pick<CommitStatus, 'state' | 'description'> {
  if (check.state === 'queued') return { state: 'pending', description: 'Site check queued' };
  if (check.state === 'running') return { state: 'pending', description: 'Site check running' };
  if (check.state === 'failed') return { state: 'failure', description: clip(`Site check could not run: ${check.error ?? 'unknown error'}`) };
  const findings = [...(check.findings?.findings ?? [])].sort((a, b) => SEVERITY_RANK[a.severity] - SEVERITY_RANK[b.severity]);
  const pages = check.pages?.length ?? 0;
  if (findings.length === 0) return { state: 'success', description: clip(`No regressions on ${pages} page${pages === 1 ? '' : 's'}`) };
  const worst = findings[0];
  const failing = findings.filter((f) => SEVERITY_RANK[f.severity] <= SEVERITY_RANK[failOn]).length;
  const named = `${worst.kind} (${worst.severity}) on ${pathOf(worst.url)}`;
  if (failing === 0) return { state: 'success', description: clip(`${findings.length} finding${findings.length === 1 ? '' : 's'} below ${failOn}; worst: ${named}`) };
  return { state: 'failure', description: clip(`${failing} regression${failing === 1 ? '' : 's'} at ${failOn} or worse; worst: ${named}`) };
}

/**
 * Posts the status of a check to the commit of its deploy, when that deploy came from a
 * connection that is not broken. A refused token breaks the connection (and is not retried);
 * an unavailable host throws for the job to retry (its attempt already retried the host's 5xx
 * and rate limits).
 */
export async function postCheckStatus(db: Db, checkId: string, s: ConnectionSettings, signal?: AbortSignal): Promise<CommitStatus | null> {
  const check = await SiteCheck.query(db).findById(checkId);
  if (!check?.deploy_id) return null;
  const deploy = await Deploy.query(db).findById(check.deploy_id);
  if (!deploy?.connection_id) return null;
  const c = await Connection.query(db).findById(deploy.connection_id);
  if (!c || c.state === 'broken') return null;
  const status: CommitStatus = {
    ...statusOfCheck(check, c.fail_on),
    context: `sitehealth/${deploy.environment}`,
    targetUrl: `${s.publicUrl}/v1/deploys/${deploy.id}`,
  };
  const client = hostClient({ provider: c.provider, baseUrl: c.base_url, repository: c.repository, token: openSecrets(c, s.keyring).token, externalId: c.external_id }, { allowPrivateNetwork: s.allowPrivateNetwork, timeoutMs: s.timeoutMs, signal });
  try {
    await client.postStatus(deploy.commit_sha, status);
  } catch (err) {
    const e = err instanceof HostError ? err : new HostError('other', String(err));
    if (e.kind === 'auth') {
      await markBroken(db, c, e.message);
      return null;
    }
    await recordHostError(db, c.id, `${c.provider === 'github' ? 'GitHub' : 'GitLab'} refused the ${status.state} status of ${deploy.commit_sha.slice(0, 7)}: ${e.message}`);
    if (e.kind === 'unavailable') throw e;
    return null;
  }
  return status;
}
