import { Octokit } from '@octokit/rest';
import { Gitlab } from '@gitbeaker/rest';
import { createRequesterFn } from '@gitbeaker/requester-utils';
import type { FilePatch } from '@sitehealth/sdk/signals';
import { FetchError } from '../net/index.ts';
import { safeErrorText } from '../platform/index.ts';
import { hostFetch, type HostFetchOptions } from './host-fetch.ts';

// The two hosts behind one small interface: read the repository, compare two commits, list one
// commit's files, post a commit status. Each speaks through its maintained client
// (@octokit/rest, @gitbeaker/rest), both given the guarded fetch of host-fetch.ts.

export type Provider = 'github' | 'gitlab';

/** What went wrong talking to a host, in the terms the connection acts on. */
export class HostError extends Error {
  constructor(
    /** `auth`: the token was refused (401, or 403 without a rate limit); `not_found`: 404 (or GitLab's 422 for an unknown ref); `unavailable`: 5xx, rate limited or no answer; `other`. */
    readonly kind: 'auth' | 'not_found' | 'unavailable' | 'other',
    message: string,
    readonly status: number | null = null,
  ) {
    super(message);
    this.name = 'HostError';
  }
}

export interface CompareResult {
  files: FilePatch[];
  /** Commit shas from the base (exclusive) to the head, oldest first, as far as the host listed them. */
  commits: string[];
  /** Commits between the two in all (may be more than `commits`). */
  totalCommits: number;
  /** The host cut the file list or some patches: the per-commit requests must stand in. */
  incomplete: boolean;
}

export interface CommitStatus {
  state: 'pending' | 'success' | 'failure';
  context: string;
  description: string;
  targetUrl: string;
}

export interface HostClient {
  /** One call that needs the token to read the repository; returns the host's id for it. */
  readRepository(): Promise<{ externalId: string }>;
  compare(base: string, head: string): Promise<CompareResult>;
  /** One commit's files with their patches, up to `maxFiles`; `incomplete` when there were more. */
  commitFiles(sha: string, maxFiles: number): Promise<{ files: FilePatch[]; parents: number; incomplete: boolean }>;
  postStatus(sha: string, status: CommitStatus): Promise<void>;
}

export interface HostTarget {
  provider: Provider;
  baseUrl: string;
  repository: string;
  token: string;
  /** GitLab's project id once known (saves resolving the path on every call). */
  externalId?: string | null;
}

export const DEFAULT_BASE_URL: Record<Provider, string> = { github: 'https://api.github.com', gitlab: 'https://gitlab.com' };

/** GitHub's compare lists at most this many files; a commit lists at most this many per page. */
export const GITHUB_COMPARE_MAX_FILES = 300;
/** GitHub's compare lists at most this many commits. */
export const GITHUB_COMPARE_MAX_COMMITS = 250;

/** A host error from whatever the client threw: its status and message, never the token. */
function hostErrorOf(err: unknown): HostError {
  if (err instanceof HostError) return err;
  if (err instanceof FetchError) {
    const kind = err.code === 'blocked_address' || err.code === 'invalid_url' || err.code === 'unsupported_scheme' ? 'other' : 'unavailable';
    return new HostError(kind, err.message);
  }
  const e = err as { status?: unknown; response?: { headers?: Record<string, string> }; message?: unknown };
  const status = typeof e.status === 'number' ? e.status : null;
  const text = safeErrorText(err).slice(0, 300);
  if (status === null) return new HostError('unavailable', text);
  const headers = e.response?.headers ?? {};
  const limited = status === 429 || (status === 403 && headers['x-ratelimit-remaining'] === '0');
  if (status >= 500 || limited) return new HostError('unavailable', `the host answered ${status}${limited ? ' (rate limited)' : ''}`, status);
  if (status === 401 || status === 403) return new HostError('auth', `the host refused the token (${status}): ${text}`, status);
  if (status === 404) return new HostError('not_found', `not found (404): ${text}`, status);
  return new HostError('other', `the host answered ${status}: ${text}`, status);
}

async function mapped<T>(call: () => Promise<T>): Promise<T> {
  try {
    return await call();
  } catch (err) {
    throw hostErrorOf(err);
  }
}

const GITHUB_STATUS: Record<string, FilePatch['status']> = { added: 'added', removed: 'deleted', modified: 'modified', renamed: 'renamed', copied: 'copied', changed: 'modified', unchanged: 'modified' };

interface GitHubFile {
  filename: string;
  status: string;
  previous_filename?: string;
  patch?: string;
}

function githubFile(f: GitHubFile): FilePatch {
  const status = GITHUB_STATUS[f.status] ?? 'modified';
  return { path: f.filename, status, ...(f.previous_filename !== undefined && status !== 'added' && { oldPath: f.previous_filename }), ...(f.patch !== undefined && { patch: f.patch }) };
}

const silent = { debug: () => {}, info: () => {}, warn: () => {}, error: () => {} };

function github(t: HostTarget, fetchOptions: HostFetchOptions): HostClient {
  const octokit = new Octokit({ auth: t.token, baseUrl: t.baseUrl.replace(/\/+$/, ''), userAgent: 'sitehealth', log: silent, request: { fetch: hostFetch(fetchOptions) } });
  const [owner, repo] = t.repository.split('/');
  return {
    readRepository: () => mapped(async () => ({ externalId: String((await octokit.rest.repos.get({ owner, repo })).data.id) })),
    compare: (base, head) =>
      mapped(async () => {
        const { data } = await octokit.rest.repos.compareCommitsWithBasehead({ owner, repo, basehead: `${base}...${head}` });
        const files = (data.files ?? []).map(githubFile);
        return {
          files,
          commits: data.commits.map((c) => c.sha),
          totalCommits: data.total_commits,
          incomplete: files.length >= GITHUB_COMPARE_MAX_FILES || data.total_commits > data.commits.length,
        };
      }),
    commitFiles: (sha, maxFiles) =>
      mapped(async () => {
        const files: FilePatch[] = [];
        let parents = 0;
        // A commit's files come 300 to a page (up to 3,000 over ten pages).
        for (let page = 1; page <= 10; page++) {
          const { data } = await octokit.rest.repos.getCommit({ owner, repo, ref: sha, page, per_page: GITHUB_COMPARE_MAX_FILES });
          parents = data.parents.length;
          files.push(...(data.files ?? []).map(githubFile));
          if ((data.files ?? []).length < GITHUB_COMPARE_MAX_FILES || files.length >= maxFiles) break;
        }
        return { files: files.slice(0, maxFiles), parents, incomplete: files.length > maxFiles };
      }),
    postStatus: (sha, s) =>
      mapped(async () => {
        await octokit.rest.repos.createCommitStatus({ owner, repo, sha, state: s.state, context: s.context, description: s.description, target_url: s.targetUrl });
      }),
  };
}

interface GitLabDiff {
  old_path: string;
  new_path: string;
  new_file: boolean;
  renamed_file: boolean;
  deleted_file: boolean;
  diff: string;
  too_large?: boolean;
  collapsed?: boolean;
}

function gitlabFile(d: GitLabDiff): FilePatch {
  const status: FilePatch['status'] = d.new_file ? 'added' : d.deleted_file ? 'deleted' : d.renamed_file ? 'renamed' : 'modified';
  const path = d.deleted_file ? d.old_path : d.new_path;
  return { path, status, ...(d.renamed_file && { oldPath: d.old_path }), ...(d.diff && { patch: d.diff }) };
}

/** A diff GitLab left out for its size (`too_large`, `collapsed`): the per-commit requests must stand in. */
const cutByGitLab = (d: GitLabDiff) => d.too_large === true || d.collapsed === true;

interface GitbeakerOptions {
  method?: string;
  headers?: Record<string, string>;
  body?: string;
  signal?: AbortSignal;
  prefixUrl?: string;
  searchParams?: string;
}

/**
 * Gitbeaker's requester over the guarded fetch. @gitbeaker/rest calls the global fetch itself;
 * its resources take any requester, and this one is the same request with our fetch.
 */
function gitbeakerRequester(f: typeof fetch) {
  return createRequesterFn(
    (_service, options) => Promise.resolve(options),
    async (endpoint: string, options?: Record<string, unknown>) => {
      const o = (options ?? {}) as GitbeakerOptions;
      const base = o.prefixUrl?.endsWith('/') ? o.prefixUrl : `${o.prefixUrl ?? ''}/`;
      const url = new URL(endpoint, base);
      url.search = o.searchParams ?? '';
      const response = await f(url, { method: o.method, headers: o.headers, body: o.body, signal: o.signal });
      const headers = Object.fromEntries(response.headers.entries());
      const text = await response.text();
      if (!response.ok) {
        let description = text;
        try {
          const parsed = JSON.parse(text) as { message?: unknown; error?: unknown };
          description = typeof parsed.message === 'string' ? parsed.message : typeof parsed.error === 'string' ? parsed.error : JSON.stringify(parsed.message ?? parsed.error ?? parsed);
        } catch {
          // not JSON: the text as it came
        }
        throw Object.assign(new Error(description.slice(0, 300)), { status: response.status, response: { headers } });
      }
      const body = response.status === 204 || text === '' ? null : (response.headers.get('content-type') ?? '').includes('json') ? (JSON.parse(text) as Record<string, unknown>) : text;
      return { body, headers, status: response.status };
    },
  );
}

function gitlab(t: HostTarget, fetchOptions: HostFetchOptions): HostClient {
  // Sent as a bearer token, which the guarded fetch drops on a redirect to another origin.
  const api = new Gitlab({ host: t.baseUrl.replace(/\/+$/, ''), oauthToken: t.token, requesterFn: gitbeakerRequester(hostFetch(fetchOptions)), queryTimeout: null });
  const project = () => t.externalId ?? t.repository;
  return {
    readRepository: () => mapped(async () => ({ externalId: String((await api.Projects.show(t.repository)).id) })),
    compare: (base, head) =>
      mapped(async () => {
        const data = (await api.Repositories.compare(project(), base, head)) as unknown as { commits?: Array<{ id: string }>; diffs?: GitLabDiff[]; compare_timeout?: boolean; overflow?: boolean };
        const diffs = data.diffs ?? [];
        // GitLab lists commits newest first.
        const commits = (data.commits ?? []).map((c) => c.id).reverse();
        return {
          files: diffs.map(gitlabFile),
          commits,
          totalCommits: commits.length,
          incomplete: data.compare_timeout === true || data.overflow === true || diffs.some(cutByGitLab),
        };
      }),
    commitFiles: (sha, maxFiles) =>
      mapped(async () => {
        const perPage = 100;
        const [commit, diffs] = await Promise.all([
          api.Commits.show(project(), sha) as Promise<{ parent_ids?: string[] }>,
          api.Commits.showDiff(project(), sha, { perPage, maxPages: Math.ceil((maxFiles + 1) / perPage) }) as unknown as Promise<GitLabDiff[]>,
        ]);
        return { files: diffs.slice(0, maxFiles).map(gitlabFile), parents: commit.parent_ids?.length ?? 1, incomplete: diffs.length > maxFiles || diffs.some(cutByGitLab) };
      }),
    postStatus: (sha, s) =>
      mapped(async () => {
        await api.Commits.editStatus(project(), sha, s.state === 'failure' ? 'failed' : s.state, { name: s.context, targetUrl: s.targetUrl, description: s.description });
      }),
  };
}

/** The client of a connection's host. */
export function hostClient(t: HostTarget, fetchOptions: HostFetchOptions): HostClient {
  return t.provider === 'github' ? github(t, fetchOptions) : gitlab(t, fetchOptions);
}
