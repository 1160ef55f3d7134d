// `sitehealth doctor`: the key, its scopes, the workspace and the git state in one go, before a
// pipeline relies on them (as `lhci healthcheck` does). It records nothing.
import path from 'node:path';
import { createClient, DEFAULT_BASE_URL } from '@sitehealth/sdk';
import { resolveCommit } from '../git.js';
import { detectCi } from '../provider.js';
import { DeployConfigError, checkSearchScope } from '../deploy.js';
import type { CliIO, Out } from './output.js';

export interface DoctorFlags {
  workspace?: string;
  url?: string;
  cwd?: string;
  base?: string;
  json?: boolean;
}

interface Check {
  name: string;
  ok: boolean;
  detail: string;
}

/** Whether the key may record deploys, found with a request the API refuses before writing anything (an empty body). */
async function deploysScope(baseUrl: string, apiKey: string): Promise<Check> {
  try {
    const res = await fetch(`${baseUrl.replace(/\/+$/, '')}/v1/deploys`, { method: 'POST', headers: { 'x-api-key': apiKey, 'content-type': 'application/json' }, body: '{}' });
    const problem = (await res.json().catch(() => ({}))) as { code?: string; detail?: string };
    if (res.status === 400 && problem.code === 'validation_failed') return { name: 'key', ok: true, detail: `accepted by ${baseUrl}, with the deploys scope` };
    if (res.status === 401) return { name: 'key', ok: false, detail: `not accepted by ${baseUrl} (401): check SITEHEALTH_API_KEY` };
    if (res.status === 403) return { name: 'key', ok: false, detail: `lacks the deploys scope (${problem.detail ?? problem.code ?? 403})` };
    return { name: 'key', ok: false, detail: `${baseUrl} answered ${res.status} ${problem.code ?? ''}`.trim() };
  } catch (err) {
    return { name: 'key', ok: false, detail: `${baseUrl} cannot be reached: ${(err as Error).message}` };
  }
}

export async function doctorAction(flags: DoctorFlags, io: CliIO, out: Out): Promise<number> {
  const env = io.env;
  const cwd = flags.cwd ? path.resolve(io.cwd, flags.cwd) : io.cwd;
  const baseUrl = flags.url ?? (env.SITEHEALTH_URL?.trim() || DEFAULT_BASE_URL);
  const apiKey = env.SITEHEALTH_API_KEY?.trim();
  const workspaceId = flags.workspace ?? (env.SITEHEALTH_WORKSPACE_ID?.trim() || undefined);
  const checks: Check[] = [];

  if (!apiKey) checks.push({ name: 'key', ok: false, detail: 'SITEHEALTH_API_KEY is not set' });
  else {
    const key = await deploysScope(baseUrl, apiKey);
    checks.push(key);
    if (key.ok) {
      try {
        await checkSearchScope(createClient({ apiKey, baseUrl, maxRetries: 0 }), workspaceId);
        checks.push({ name: 'search scope', ok: true, detail: 'present: --wait can read the site check' });
        checks.push({ name: 'workspace', ok: true, detail: workspaceId ? `${workspaceId} is visible to the key` : 'none named: the key must be bound to one (SITEHEALTH_WORKSPACE_ID or --workspace otherwise)' });
      } catch (err) {
        const message = (err as Error).message.replace(/; nothing was recorded$/, '');
        const name = err instanceof DeployConfigError && /workspace/.test(message) && !/scope/.test(message) ? 'workspace' : 'search scope';
        checks.push({ name, ok: false, detail: message });
      }
    }
  }

  const ci = await detectCi({ env, cwd, base: flags.base });
  if (!ci.commit) checks.push({ name: 'git', ok: false, detail: `no commit: ${cwd} is not a repository and the CI names none (SITEHEALTH_COMMIT)` });
  else {
    const base = ci.base === undefined ? null : await resolveCommit(cwd, ci.base).catch(() => null);
    const where = `${ci.providerName ?? (ci.isCi ? 'CI' : 'local')}: commit ${ci.commit.slice(0, 12)}${ci.ref ? ` on ${ci.ref}` : ''}, environment ${ci.environment ?? 'production'}${ci.environmentSource ? ` (${ci.environmentSource})` : ''}`;
    if (ci.base === undefined) checks.push({ name: 'git', ok: false, detail: `${where}; no base commit to compare with: changes cannot be read (fetch more history)` });
    else if (base === null) checks.push({ name: 'git', ok: false, detail: `${where}; base ${ci.base} (${ci.baseSource}) is not in this clone (fetch-depth: 0, or git fetch --deepen)` });
    else checks.push({ name: 'git', ok: true, detail: `${where}; compared with ${base.slice(0, 12)} (${ci.baseSource})` });
  }

  const ok = checks.every((c) => c.ok);
  if (flags.json) out.raw(`${JSON.stringify({ ok, checks })}\n`);
  else for (const c of checks) out.out(`${c.ok ? 'ok  ' : 'FAIL'} ${c.name}: ${c.detail}`);
  return ok ? 0 : 2;
}
