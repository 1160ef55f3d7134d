// Local stand-ins for GitHub's and GitLab's REST APIs, speaking the real shapes of the calls a
// connection makes: read the repository, compare two commits, one commit's files (GitHub) or
// diff (GitLab), and commit statuses. Commits form chains the test builds; limits (GitHub's 300
// files and 250 commits per compare) and failures (status answers, hangs) are set per test.
import crypto from 'node:crypto';
import http from 'node:http';
import type { AddressInfo } from 'node:net';

export interface StubFile {
  path: string;
  status: 'added' | 'modified' | 'removed' | 'renamed';
  previous?: string;
  /** The file's hunks, as the host's `patch` / `diff` carries them. */
  patch: string;
}

interface StubCommit {
  sha: string;
  parent: string | null;
  files: StubFile[];
  message: string;
}

export interface StubRequest {
  method: string;
  path: string;
  authorization: string;
}

export interface PostedStatus {
  sha: string;
  body: Record<string, unknown>;
}

interface Failure {
  match: RegExp;
  status: number;
  times: number;
  headers?: Record<string, string>;
}

export class StubRepoHost {
  readonly requests: StubRequest[] = [];
  readonly statuses: PostedStatus[] = [];
  readonly commits = new Map<string, StubCommit>();
  token: string;
  /** Files a compare lists at most (GitHub: 300). */
  compareMaxFiles = 300;
  /** Commits a compare lists at most (GitHub: 250). */
  compareMaxCommits = 250;
  private failures: Failure[] = [];
  private hang: RegExp | null = null;
  private server!: http.Server;
  url = '';

  private constructor(
    readonly provider: 'github' | 'gitlab',
    readonly repository: string,
    readonly projectId: number,
    token: string,
  ) {
    this.token = token;
  }

  static async start(provider: 'github' | 'gitlab', repository: string, token: string): Promise<StubRepoHost> {
    const host = new StubRepoHost(provider, repository, 4242, token);
    host.server = http.createServer((req, res) => void host.handle(req, res));
    await new Promise<void>((r) => host.server.listen(0, '127.0.0.1', r));
    host.url = `http://127.0.0.1:${(host.server.address() as AddressInfo).port}`;
    return host;
  }

  /** The `baseUrl` a connection to this host is given. */
  get baseUrl(): string {
    return this.url;
  }

  async close(): Promise<void> {
    this.server.closeAllConnections();
    await new Promise<void>((r) => this.server.close(() => r()));
  }

  /** Adds a commit on top of `parent` and returns its sha. */
  commit(parent: string | null, files: StubFile[], message = 'change'): string {
    const sha = crypto.randomBytes(20).toString('hex');
    this.commits.set(sha, { sha, parent, files, message });
    return sha;
  }

  /** The next `times` requests whose path matches answer `status`. */
  failNext(match: RegExp, status: number, times: number, headers?: Record<string, string>): void {
    this.failures.push({ match, status, times, headers });
  }

  /** Requests whose path matches never answer (until cleared with null). */
  hangOn(match: RegExp | null): void {
    this.hang = match;
  }

  requestsTo(match: RegExp): StubRequest[] {
    return this.requests.filter((r) => match.test(r.path));
  }

  /** The commits after `base` up to `head`, oldest first; null when base is not an ancestor. */
  private between(base: string, head: string): StubCommit[] | null {
    const out: StubCommit[] = [];
    let at: string | null = head;
    while (at !== null && at !== base) {
      const c = this.commits.get(at);
      if (!c) return null;
      out.unshift(c);
      at = c.parent;
    }
    return at === base && this.commits.has(base) ? out : null;
  }

  private send(res: http.ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}): void {
    const text = JSON.stringify(body);
    res.writeHead(status, { 'content-type': 'application/json; charset=utf-8', 'content-length': Buffer.byteLength(text), ...headers });
    res.end(text);
  }

  private async handle(req: http.IncomingMessage, res: http.ServerResponse): Promise<void> {
    const chunks: Buffer[] = [];
    for await (const c of req) chunks.push(c as Buffer);
    const url = new URL(req.url ?? '/', this.url);
    const path = decodeURIComponent(url.pathname);
    this.requests.push({ method: req.method ?? 'GET', path: `${path}${url.search}`, authorization: String(req.headers.authorization ?? '') });
    if (this.hang?.test(path)) return; // never answers
    const failure = this.failures.find((f) => f.times > 0 && f.match.test(path));
    if (failure) {
      failure.times--;
      return this.send(res, failure.status, { message: `stub failure ${failure.status}` }, failure.headers);
    }
    const auth = String(req.headers.authorization ?? '').replace(/^(token|Bearer) /, '');
    if (auth !== this.token) return this.send(res, 401, this.provider === 'github' ? { message: 'Bad credentials', documentation_url: 'https://docs.github.com/rest' } : { message: '401 Unauthorized' });
    const body = chunks.length ? (JSON.parse(Buffer.concat(chunks).toString('utf8')) as Record<string, unknown>) : {};
    if (this.provider === 'github') return this.github(req.method ?? 'GET', path, url, body, res);
    return this.gitlab(req.method ?? 'GET', path, url, body, res);
  }

  private github(method: string, path: string, url: URL, body: Record<string, unknown>, res: http.ServerResponse): void {
    const prefix = `/repos/${this.repository}`;
    const notFound = () => this.send(res, 404, { message: 'Not Found', documentation_url: 'https://docs.github.com/rest', status: '404' });
    if (!path.startsWith(prefix)) return notFound();
    const rest = path.slice(prefix.length);
    const file = (f: StubFile) => ({
      sha: crypto.createHash('sha1').update(f.patch).digest('hex'),
      filename: f.path,
      status: f.status,
      additions: 1,
      deletions: 0,
      changes: 1,
      patch: f.patch,
      ...(f.previous && { previous_filename: f.previous }),
    });
    if (method === 'GET' && rest === '') return this.send(res, 200, { id: 1296269, name: this.repository.split('/')[1], full_name: this.repository, private: false, default_branch: 'main' });
    let m = /^\/compare\/([0-9a-f]+)\.\.\.([0-9a-f]+)$/.exec(rest);
    if (method === 'GET' && m) {
      const commits = this.between(m[1], m[2]);
      if (!commits) return notFound();
      const files = commits.flatMap((c) => c.files);
      const listed = commits.slice(0, this.compareMaxCommits);
      return this.send(res, 200, {
        status: 'ahead',
        ahead_by: commits.length,
        behind_by: 0,
        total_commits: commits.length,
        commits: listed.map((c) => ({ sha: c.sha, commit: { message: c.message }, parents: c.parent ? [{ sha: c.parent }] : [] })),
        files: files.slice(0, this.compareMaxFiles).map(file),
      });
    }
    m = /^\/commits\/([0-9a-f]+)$/.exec(rest);
    if (method === 'GET' && m) {
      const c = this.commits.get(m[1]);
      if (!c) return this.send(res, 422, { message: 'No commit found for SHA' });
      const perPage = Number(url.searchParams.get('per_page') ?? 300);
      const page = Number(url.searchParams.get('page') ?? 1);
      return this.send(res, 200, { sha: c.sha, commit: { message: c.message }, parents: c.parent ? [{ sha: c.parent }] : [], files: c.files.slice((page - 1) * perPage, page * perPage).map(file) });
    }
    m = /^\/statuses\/([0-9a-f]+)$/.exec(rest);
    if (method === 'POST' && m) {
      if (!this.commits.has(m[1])) return this.send(res, 422, { message: 'No commit found for SHA' });
      this.statuses.push({ sha: m[1], body });
      return this.send(res, 201, { id: this.statuses.length, state: body.state, context: body.context, description: body.description, target_url: body.target_url });
    }
    return notFound();
  }

  private gitlab(method: string, path: string, url: URL, body: Record<string, unknown>, res: http.ServerResponse): void {
    const notFound = () => this.send(res, 404, { message: '404 Project Not Found' });
    const m0 = /^\/api\/v4\/projects\/(.+?)(\/(?:repository|statuses)\/.*)?$/.exec(path);
    if (!m0 || (m0[1] !== this.repository && m0[1] !== String(this.projectId))) return notFound();
    const rest = m0[2] ?? '';
    const diff = (f: StubFile) => ({
      old_path: f.previous ?? f.path,
      new_path: f.path,
      a_mode: '100644',
      b_mode: '100644',
      new_file: f.status === 'added',
      renamed_file: f.status === 'renamed',
      deleted_file: f.status === 'removed',
      diff: f.patch,
    });
    if (method === 'GET' && rest === '') return this.send(res, 200, { id: this.projectId, path_with_namespace: this.repository, default_branch: 'main' });
    if (method === 'GET' && rest === '/repository/compare') {
      const from = url.searchParams.get('from') ?? '';
      const to = url.searchParams.get('to') ?? '';
      const commits = this.between(from, to);
      if (!commits) return this.send(res, 404, { message: '404 Commit Not Found' });
      const files = commits.flatMap((c) => c.files);
      const newestFirst = [...commits].reverse().map((c) => ({ id: c.sha, short_id: c.sha.slice(0, 8), title: c.message }));
      return this.send(res, 200, {
        commit: newestFirst[0] ?? null,
        commits: newestFirst,
        diffs: files.map((f, i) => (i < this.compareMaxFiles ? diff(f) : { ...diff(f), diff: '', too_large: true, collapsed: true })),
        compare_timeout: false,
        compare_same_ref: from === to,
      });
    }
    let m = /^\/repository\/commits\/([0-9a-f]+)(\/diff)?$/.exec(rest);
    if (method === 'GET' && m) {
      const c = this.commits.get(m[1]);
      if (!c) return this.send(res, 404, { message: '404 Commit Not Found' });
      if (!m[2]) return this.send(res, 200, { id: c.sha, short_id: c.sha.slice(0, 8), title: c.message, parent_ids: c.parent ? [c.parent] : [] });
      const perPage = Number(url.searchParams.get('per_page') ?? 20);
      const page = Number(url.searchParams.get('page') ?? 1);
      const last = Math.max(1, Math.ceil(c.files.length / perPage));
      const headers: Record<string, string> = { 'x-page': String(page), 'x-per-page': String(perPage), 'x-total': String(c.files.length), 'x-total-pages': String(last) };
      if (page < last) {
        const next = new URL(url.href);
        next.searchParams.set('page', String(page + 1));
        headers.link = `<${next.href}>; rel="next"`;
        headers['x-next-page'] = String(page + 1);
      }
      return this.send(res, 200, c.files.slice((page - 1) * perPage, page * perPage).map(diff), headers);
    }
    m = /^\/statuses\/([0-9a-f]+)$/.exec(rest);
    if (method === 'POST' && m) {
      if (!this.commits.has(m[1])) return this.send(res, 404, { message: '404 Commit Not Found' });
      this.statuses.push({ sha: m[1], body });
      return this.send(res, 201, { id: this.statuses.length, sha: m[1], status: body.state, name: body.name, description: body.description, target_url: body.target_url });
    }
    return notFound();
  }
}
