// Both packages as a consumer gets them: `npm pack` in sdk/ and cli/, the tarballs installed into
// a fresh project (from the npm cache, else the registry; without either, the tarballs unpacked
// beside links to the repository's copies of their dependencies). A consumer file that calls every
// resource method is typechecked against the packages' declarations and run against a live server;
// the SDK is loaded through require() and import and bundled for a browser; the installed
// `sitehealth` bins run.
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import crypto from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { after, before, describe, it, type TestContext } from 'node:test';
import { pathToFileURL } from 'node:url';
import { createApiKey, createUser, setPassword } from '../core/access/index.ts';
import { operatorActor } from '../core/activity/index.ts';
import { createDb, type Db } from '../core/db/index.ts';
import { createWorkspace } from '../core/workspaces/index.ts';
import { dropCreatedDatabases, freshDatabaseUrl } from './support/databases.ts';
import { startReceiver, type Receiver } from './support/https-receiver.ts';
import { killAll, startServerProcess, type ServerProc } from './support/processes.ts';
import { root } from './support/cli-build.ts';

interface Run {
  code: number;
  stdout: string;
  stderr: string;
}

function sh(cmd: string, args: readonly string[], opts: { cwd: string; env?: NodeJS.ProcessEnv; input?: string; timeoutMs?: number }): Promise<Run> {
  return new Promise((resolve) => {
    const child = execFile(cmd, [...args], { cwd: opts.cwd, env: opts.env ?? process.env, maxBuffer: 64 << 20, timeout: opts.timeoutMs ?? 300_000 }, (err, stdout, stderr) => {
      const code = err ? (typeof (err as { code?: unknown }).code === 'number' ? (err as { code: number }).code : 1) : 0;
      resolve({ code, stdout: String(stdout), stderr: String(stderr) });
    });
    child.stdin?.end(opts.input ?? '');
  });
}

const npm = (args: string[], cwd: string, timeoutMs?: number) => sh(process.platform === 'win32' ? 'npm.cmd' : 'npm', args, { cwd, timeoutMs });
const tsc = path.join(root, 'node_modules/typescript/bin/tsc');
const sdkDir = path.join(root, 'sdk');
const cliDir = path.join(root, 'cli');

interface Packed {
  filename: string;
  files: Array<{ path: string }>;
}

let work: string;
let packedSdk: Packed;
let packedCli: Packed;
let consumer: string;
let installedBy: 'npm' | 'links';

after(async () => {
  await killAll();
  await dropCreatedDatabases();
  if (work) fs.rmSync(work, { recursive: true, force: true });
});

async function pack(dir: string): Promise<Packed> {
  // `prepack` builds (the CLI's builds the SDK first). Its output precedes the JSON on stdout.
  const res = await npm(['pack', '--json', '--pack-destination', work], dir);
  assert.equal(res.code, 0, res.stderr);
  const [packed] = JSON.parse(res.stdout.slice(res.stdout.search(/^\[/m)));
  assert.ok(fs.existsSync(path.join(work, packed.filename)));
  return packed;
}

const installed = (name: 'sdk' | 'cli') => path.join(consumer, 'node_modules/@sitehealth', name);

before(async () => {
  work = fs.mkdtempSync(path.join(os.tmpdir(), 'sitehealth-pack-'));
  packedSdk = await pack(sdkDir);
  packedCli = await pack(cliDir);

  consumer = path.join(work, 'consumer');
  fs.mkdirSync(consumer);
  fs.writeFileSync(path.join(consumer, 'package.json'), JSON.stringify({ name: 'sdk-consumer', private: true, type: 'module' }));
  const tarballs = [packedSdk, packedCli].map((p) => path.join(work, p.filename));
  const install = await npm(['install', '--prefer-offline', '--no-audit', '--no-fund', '--ignore-scripts', '--loglevel=error', ...tarballs], consumer, 180_000);
  if (install.code === 0) {
    installedBy = 'npm';
  } else {
    // Neither the cache nor the registry could be reached: the tarballs, unpacked, and links to the
    // repository's copies of exactly the dependencies they declare (their own resolve from there).
    installedBy = 'links';
    for (const [name, p] of [['sdk', packedSdk], ['cli', packedCli]] as const) {
      fs.mkdirSync(installed(name), { recursive: true });
      const untar = await sh('tar', ['-xzf', path.join(work, p.filename), '-C', installed(name), '--strip-components=1'], { cwd: consumer });
      assert.equal(untar.code, 0, untar.stderr);
      for (const d of Object.keys(JSON.parse(fs.readFileSync(path.join(installed(name), 'package.json'), 'utf8')).dependencies)) {
        const link = path.join(consumer, 'node_modules', d);
        if (!d.startsWith('@sitehealth/') && !fs.existsSync(link)) fs.symlinkSync(path.join(root, 'node_modules', d), link, 'dir');
      }
    }
    const why = install.stderr.split('\n').filter((l) => /error/i.test(l) && !/complete log/.test(l)).slice(0, 2).join('; ');
    process.stderr.write(`# npm install failed (${why}); installed by unpacking and linking\n`);
  }
});

/** The bare module specifiers the compiled files of an installed package import, with the files. */
function importsOf(pkgDir: string): Map<string, string[]> {
  const js = fs.readdirSync(path.join(pkgDir, 'dist'), { recursive: true, encoding: 'utf8' }).filter((f) => f.endsWith('.js'));
  const imported = new Map<string, string[]>();
  for (const f of js) {
    const text = fs.readFileSync(path.join(pkgDir, 'dist', f), 'utf8');
    for (const m of text.matchAll(/(?:^|\n)\s*(?:import|export)\b[^;]*?\bfrom\s+['"]([^'"]+)['"]|\bimport\(\s*['"]([^'"]+)['"]\s*\)|\brequire\(\s*['"]([^'"]+)['"]\s*\)/g)) {
      const spec = m[1] ?? m[2] ?? m[3];
      if (spec.startsWith('.')) continue;
      imported.set(spec, [...(imported.get(spec) ?? []), f]);
    }
  }
  return imported;
}

// ---------------------------------------------------------------------------------------------

const CONSUMER_TS = `
import os from 'node:os';
import {
  createClient,
  SiteHealth,
  SiteHealthError,
  NotFoundError,
  UnprocessableError,
  ValidationError,
  VERSION,
  type Deploy,
  type DeployDetail,
  type DeliveryAttempt,
  type Severity,
  type SiteHealthEvent,
  type WebhookWithSecret,
  type paths,
  sessionFromSignIn,
} from '@sitehealth/sdk';
import { verifyWebhook, signWebhook, WebhookVerificationError } from '@sitehealth/sdk/webhooks';
import { changesFromDiffText } from '@sitehealth/sdk/signals';
import { recordDeploy, findingsAtOrAbove, buildDeployBody, VERSION as CLI_VERSION } from '@sitehealth/cli';

const env = process.env;
const client: SiteHealth = createClient({ baseUrl: env.SITEHEALTH_URL!, apiKey: env.SITEHEALTH_API_KEY!, timeoutMs: 10_000, maxRetries: 1, userAgent: 'consumer/1.0' });
const workspaceId = env.WORKSPACE_ID!;
const report: Record<string, unknown> = { version: VERSION, cliVersion: CLI_VERSION };
const called: string[] = [];
const call = async <T>(name: string, p: Promise<T>): Promise<T> => { const v = await p; called.push(name); return v; };

// Workspaces
const all = await call('workspaces.list', client.workspaces.list());
report.workspaces = all.data.map((w) => w.id);
const stamp = Date.now();
const ws = await call('workspaces.create', client.workspaces.create({ name: 'Consumer ' + stamp, website: 'https://consumer.example' }, { idempotencyKey: 'consumer-' + stamp }));
const wsAgain = await client.workspaces.create({ name: 'Consumer ' + stamp, website: 'https://consumer.example' }, { idempotencyKey: 'consumer-' + stamp });
report.idempotent = { same: wsAgain.id === ws.id, replayed: wsAgain.lastResponse.headers.get('idempotent-replayed'), requestId: typeof ws.lastResponse.requestId, remaining: typeof ws.lastResponse.rateLimit?.remaining };
const got = await call('workspaces.get', client.workspaces.get(ws.id));
const updated = await call('workspaces.update', client.workspaces.update(ws.id, { description: 'from the tarball' }));
report.workspace = { created: ws.name === got.name, description: updated.description };
await call('workspaces.delete', client.workspaces.delete(ws.id));

// Deploys and site checks
const sha = env.COMMIT_SHA!;
const deploy: Deploy = await call('deploys.create', client.deploys.create({
  workspaceId, commitSha: sha, environment: 'staging', ref: 'main',
  changes: [{ path: 'src/pages/blog.astro', category: 'page', signals: [{ kind: 'canonical', change: 'removed', line: 3 }] }],
}));
const deploys = await call('deploys.list', client.deploys.list({ workspace_id: workspaceId, limit: 5 }));
const detail: DeployDetail = await call('deploys.get', client.deploys.get(deploy.id));
const latest = await call('siteChecks.latest', client.siteChecks.latest(workspaceId));
report.deploy = { id: deploy.id, listed: deploys.data.some((d) => d.id === deploy.id), findings: detail.findings.length, latest: latest.latest };
const manual = await call('siteChecks.create', client.siteChecks.create(workspaceId));
const manualAgain = await client.siteChecks.create(workspaceId);
const checks = await call('siteChecks.list', client.siteChecks.list({ workspace_id: workspaceId, trigger: 'manual' }));
const checkDetail = await call('siteChecks.get', client.siteChecks.get(manual.id));
const crawl = await call('siteCrawls.create', client.siteCrawls.create(workspaceId));
const crawls = await call('siteCrawls.list', client.siteCrawls.list({ workspace_id: workspaceId }));
const crawlDetail = await call('siteCrawls.get', client.siteCrawls.get(crawl.id, { limit: 10 }));
const latestCrawl = await call('siteCrawls.latest', client.siteCrawls.latest(workspaceId));
report.runs = {
  created: manual.lastResponse.status, again: manualAgain.lastResponse.status, same: manualAgain.id === manual.id, listed: checks.data.some((c) => c.id === manual.id),
  detail: checkDetail.trigger, crawl: crawl.trigger, crawls: crawls.data.length, crawlPages: crawlDetail.pages.length, latestCrawl: latestCrawl.latest?.id === crawl.id,
};

// Search performance (nothing imported: zero totals, no rows)
const perf = await call('searchPerformance.get', client.searchPerformance.get({ workspace_id: workspaceId, from: '2026-10-01', to: '2026-10-28', dimension: 'query', compare: 'previous' }));
report.searchPerformance = { clicks: perf.totals.clicks, rows: perf.data.length, compared: perf.compareTotals?.clicks };

// Logs and activity, page by page
const logs = await call('logs.list', client.logs.list({ workspace_id: workspaceId, limit: 100 }));
let logRows = 0;
for await (const row of client.logs.iterate({ workspace_id: workspaceId, limit: 2 })) { logRows += row.status_code > 0 ? 1 : 0; if (logRows >= 5) break; }
called.push('logs.iterate');
const activity = await call('activity.list', client.activity.list({ limit: 50 }));
let activityRows = 0;
for await (const _row of client.activity.iterate({ limit: 1 })) { activityRows++; if (activityRows >= 3) break; }
called.push('activity.iterate');
report.logs = { page: logs.data.length, iterated: logRows };
report.activity = { page: activity.data.length, iterated: activityRows };

// Webhooks: every operation
const hook: WebhookWithSecret = await call('webhooks.create', client.webhooks.create({ workspaceId, url: env.HOOK_URL!, events: ['deploy.recorded', 'site_check.regression'], name: 'consumer', headers: { 'X-Consumer': 'yes' } }));
const hooks = await call('webhooks.list', client.webhooks.list({ workspace_id: workspaceId }));
const one = await call('webhooks.get', client.webhooks.get(hook.id));
const renamed = await call('webhooks.update', client.webhooks.update(hook.id, { name: 'consumer 2' }));
const attempt: DeliveryAttempt = await call('webhooks.test', client.webhooks.test(hook.id));
const page = await call('webhooks.listDeliveries', client.webhooks.listDeliveries(hook.id, { limit: 10 }));
let deliveries = 0;
for await (const _a of client.webhooks.iterateDeliveries(hook.id, { limit: 1 })) deliveries++;
called.push('webhooks.iterateDeliveries');
const full = await call('webhooks.getDelivery', client.webhooks.getDelivery(hook.id, attempt.id));
const again = await call('webhooks.redeliver', client.webhooks.redeliver(hook.id, attempt.id));
const event: SiteHealthEvent = await verifyWebhook({ secret: hook.secret, headers: await signWebhook({ id: 'msg_consumer', body: full.payload, secret: hook.secret }), body: full.payload });
let testWebhookId: string | null = null;
if (event.type === 'webhook.test') testWebhookId = event.data.webhookId; // data typed by type
await call('webhooks.delete', client.webhooks.delete(hook.id));
report.webhook = {
  id: hook.id, secret: hook.secret, listed: hooks.data.some((h) => h.id === hook.id), same: one.id === hook.id, name: renamed.name,
  test: attempt.status, deliveries: page.data.length, iterated: deliveries, redelivered: again.status, testWebhookId,
};

// Connected repositories: the host named cannot be reached, so connecting is refused with a typed
// error (422, not retried here); a connection that does not exist is a typed 404.
const connectionList = await call('connections.list', client.connections.list(workspaceId));
const refusal = async (name: string, p: Promise<unknown>) => {
  try { await p; } catch (err) { called.push(name); return err instanceof SiteHealthError ? [err.constructor.name, err.status, err.code] : String(err); }
  return 'accepted';
};
const missingConnection = '01900000-0000-7000-8000-0000000000fe';
report.connections = {
  listed: connectionList.data.length,
  create: await refusal('connections.create', client.connections.create(workspaceId, { provider: 'github', baseUrl: 'https://127.0.0.1:9', repository: 'acme/site', token: 'ghp_consumerToken01', branches: { main: 'production' } }, { maxRetries: 0 })),
  update: await refusal('connections.update', client.connections.update(workspaceId, missingConnection, { failOn: 'high' })),
  delete: await refusal('connections.delete', client.connections.delete(workspaceId, missingConnection)),
  typed: UnprocessableError.name,
};
// Search Console: this server has no Google OAuth client, so connecting is refused (503); there is no connection to read, sync or remove.
report.searchConsole = {
  get: await refusal('searchConsole.get', client.searchConsole.get(workspaceId)),
  connect: await refusal('searchConsole.connect', client.searchConsole.connect(workspaceId, { siteUrl: 'https://consumer.example/' }, { maxRetries: 0 })),
  sync: await refusal('searchConsole.sync', client.searchConsole.sync(workspaceId)),
  disconnect: await refusal('searchConsole.disconnect', client.searchConsole.disconnect(workspaceId)),
  callback: await refusal('searchConsoleCallback.complete', client.searchConsoleCallback.complete({ state: 'unknown-state', code: 'x' })),
};

// Members and invitations (this server writes mail to files: no SMTP_URL)
const memberList = await call('members.list', client.members.list(workspaceId));
const me = memberList.data[0];
const same = await call('members.update', client.members.update(workspaceId, me.userId, me.role));
const invited = await call('invitations.create', client.invitations.create(workspaceId, { email: 'consumer.' + stamp + '@example.com', role: 'viewer' }));
const invitations = await call('invitations.list', client.invitations.list(workspaceId));
await call('invitations.delete', client.invitations.delete(workspaceId, invited.id));
const memberRefusals: string[] = [];
try { await client.invitationAcceptance.accept('shinv_consumer'); } catch (err) { if (err instanceof NotFoundError) { memberRefusals.push(err.code); called.push('invitationAcceptance.accept'); } }
try { await client.members.delete(workspaceId, me.userId); } catch (err) { if (err instanceof SiteHealthError) { memberRefusals.push(err.code); called.push('members.delete'); } }
report.members = { count: memberList.data.length, role: same.role, invited: invitations.data.some((i) => i.id === invited.id), refusals: memberRefusals };

// Digests: my settings, a report as JSON and as HTML, and unsubscribe tokens that are no token
const mySettings = await call('notifications.get', client.notifications.get(workspaceId));
const daily = await call('notifications.update', client.notifications.update(workspaceId, { digest: 'daily' }));
const today = new Date().toISOString().slice(0, 10);
const report1 = await call('reports.get', client.reports.get(workspaceId, { from: today, to: today }));
const reportPage = await call('reports.getHtml', client.reports.getHtml(workspaceId, { from: today, to: today }));
const unsubscribeRefusals: string[] = [];
try { await client.unsubscribe.page('shu_consumer'); } catch (err) { if (err instanceof NotFoundError) { unsubscribeRefusals.push(err.code); called.push('unsubscribe.page'); } }
try { await client.unsubscribe.unsubscribe('shu_consumer'); } catch (err) { if (err instanceof NotFoundError) { unsubscribeRefusals.push(err.code); called.push('unsubscribe.unsubscribe'); } }
report.digests = { was: mySettings.digest, now: daily.digest, deploys: Array.isArray(report1.deploys), html: reportPage.html.startsWith('<!doctype html>'), refusals: unsubscribeRefusals };
// A person: sign in, then the session's own operations through a client made from it
const signedIn = await call('sessions.create', client.sessions.create({ email: env.SITEHEALTH_EMAIL!, password: env.SITEHEALTH_PASSWORD! }));
const credential = sessionFromSignIn(signedIn)!;
const person = createClient({ baseUrl: env.SITEHEALTH_URL!, session: credential, maxRetries: 0 });
const meNow = await call('currentUser.get', person.currentUser.get());
const devices = await call('sessions.list', person.sessions.list());
const verification = await call('currentUser.sendVerification', person.currentUser.sendVerification());
// Two-step: a setup starts (its secret shown once); no app holds it, so the rest is refused
const twoStepRefusals: string[] = [];
const refusedTwoStep = async (name: string, p: Promise<unknown>) => { try { await p; } catch (err) { if (err instanceof SiteHealthError) { twoStepRefusals.push(err.code); called.push(name); } } };
const setup = await call('currentUser.startTwoStep', person.currentUser.startTwoStep());
twoStepRefusals.push(typeof setup.secret);
await refusedTwoStep('currentUser.confirmTwoStep', person.currentUser.confirmTwoStep('123456'));
await refusedTwoStep('currentUser.disableTwoStep', person.currentUser.disableTwoStep(env.SITEHEALTH_PASSWORD!));
await refusedTwoStep('currentUser.regenerateRecoveryCodes', person.currentUser.regenerateRecoveryCodes(env.SITEHEALTH_PASSWORD!));
await refusedTwoStep('twoStepSignIn.complete', client.twoStepSignIn.complete({ challenge: 'sh2s_consumer', code: '123456' }));
report.twoStep = twoStepRefusals;
await call('currentUser.changePassword', person.currentUser.changePassword({ currentPassword: env.SITEHEALTH_PASSWORD!, newPassword: env.SITEHEALTH_PASSWORD! + ' 2' }));
const others = await call('currentUser.signOutOthers', person.currentUser.signOutOthers());
const reset = await call('passwordReset.request', client.passwordReset.request(env.SITEHEALTH_EMAIL!));
const linkRefusals: string[] = [];
try { await client.passwordReset.complete('shrst_consumer', 'a password of ten'); } catch (err) { if (err instanceof ValidationError) { linkRefusals.push(err.code); called.push('passwordReset.complete'); } }
try { await client.emailVerification.complete('shver_consumer'); } catch (err) { if (err instanceof ValidationError) { linkRefusals.push(err.code); called.push('emailVerification.complete'); } }
// Passkeys: no authenticator here, so each ceremony starts, and its bogus answer is a typed refusal
const registration = await call('passkeys.registrationOptions', person.passkeys.registrationOptions());
const passkeyList = await call('passkeys.list', person.passkeys.list());
const passkeyRefusals: string[] = [];
const bogus = { id: 'AQID', rawId: 'AQID', type: 'public-key' as const, clientExtensionResults: {} };
try { await person.passkeys.create({ challengeId: registration.challengeId, name: 'Consumer', response: { ...bogus, response: { clientDataJSON: 'e30', attestationObject: 'oA' } } }); } catch (err) { if (err instanceof ValidationError) { passkeyRefusals.push(err.code); called.push('passkeys.create'); } }
try { await person.passkeys.delete('01900000-0000-7000-8000-0000000000fd'); } catch (err) { if (err instanceof NotFoundError) { passkeyRefusals.push(err.code); called.push('passkeys.delete'); } }
const passkeyChallenge = await call('passkeySignIn.options', client.passkeySignIn.options());
try { await client.passkeySignIn.create({ challengeId: passkeyChallenge.challengeId, response: { ...bogus, response: { clientDataJSON: 'e30', authenticatorData: 'AA', signature: 'AA' } } }); } catch (err) { if (err instanceof SiteHealthError) { passkeyRefusals.push(err.code); called.push('passkeySignIn.create'); } }
report.passkeys = { rp: registration.publicKey.rp.id === new URL(env.SITEHEALTH_URL!).hostname, listed: passkeyList.data.length, refusals: passkeyRefusals };
await call('sessions.delete', person.sessions.delete(meNow.session.id));
let afterSignOut = 0;
try { await person.currentUser.get(); } catch (err) { if (err instanceof SiteHealthError) afterSignOut = err.status; }
report.people = { email: meNow.email === env.SITEHEALTH_EMAIL, csrf: meNow.csrfToken === credential.csrfToken, devices: devices.data.length, statuses: [verification.status, reset.status], others: others.revoked, linkRefusals, afterSignOut };

// Single sign-on: none is configured here, and no provider runs, so each step is a typed refusal
report.sso = [
  await refusal('singleSignOn.get', client.singleSignOn.get()),
  await refusal('singleSignOn.configure', client.singleSignOn.configure({ issuer: 'https://127.0.0.1:9', clientId: 'consumer', clientSecret: 'a secret' })),
  await refusal('singleSignOn.remove', client.singleSignOn.remove()),
  await refusal('ssoSignIn.start', client.ssoSignIn.start({ email: env.SITEHEALTH_EMAIL! })),
  await refusal('ssoSignIn.callback', client.ssoSignIn.callback({ code: 'code', state: 'not-a-state' }, null)),
];

// API keys: every operation (the key carries the keys scope)
const made = await call('apiKeys.create', client.apiKeys.create({ name: 'consumer', scopes: ['search'], workspaceId }));
const keyPage = await call('apiKeys.list', client.apiKeys.list({ limit: 10 }));
const keyOne = await call('apiKeys.get', client.apiKeys.get(made.id));
const rolled = await call('apiKeys.rotate', client.apiKeys.rotate(made.id, { overlapSeconds: 60 }));
await call('apiKeys.delete', client.apiKeys.delete(rolled.id));
let keysIterated = 0;
for await (const _k of client.apiKeys.iterate({ limit: 1 })) keysIterated++;
called.push('apiKeys.iterate');
report.apiKeys = { secret: made.key.startsWith('sh_'), listed: keyPage.data.some((k) => k.id === made.id), replacedBy: (await client.apiKeys.get(made.id)).replacedBy === rolled.id, prefix: keyOne.prefix === made.prefix, iterated: keysIterated };

// Errors are typed
try {
  await client.deploys.get('01900000-0000-7000-8000-0000000000ff');
} catch (err) {
  if (err instanceof NotFoundError) report.notFound = { status: err.status, code: err.code, requestId: err.requestId !== null };
}
try {
  await client.deploys.create({ workspaceId, commitSha: 'not a sha' });
} catch (err) {
  if (err instanceof ValidationError) report.invalid = { status: err.status, code: err.code, fields: err.errors.map((e) => e.path) };
  else if (err instanceof SiteHealthError) report.invalid = err.code;
}
try {
  await verifyWebhook({ secret: hook.secret, headers: {}, body: '{}' });
} catch (err) {
  if (err instanceof WebhookVerificationError) report.verification = err.reason;
}

// The raw openapi-fetch client, for any path
const raw = await client.raw.GET('/v1/deploys/{id}', { params: { path: { id: deploy.id } } });
report.raw = raw.data?.id === deploy.id;

// CI helpers, offline
const analysed = changesFromDiffText('diff --git a/public/robots.txt b/public/robots.txt\\n--- a/public/robots.txt\\n+++ b/public/robots.txt\\n@@ -1,0 +2 @@\\n+Disallow: /\\n');
report.diff = buildDeployBody({ commitSha: 'abcdef1', changes: analysed.changes }).changes;
const dry = await recordDeploy({ dryRun: true, env: {}, cwd: os.tmpdir(), commit: 'abcdef1', changedPaths: ['index.html'] });
report.dryRun = { outcome: dry.outcome, body: dry.body };
const gate: Severity = 'high';
report.gate = findingsAtOrAbove(detail.findings, gate).length;

// The types are real, not \`any\`: each line below must fail to compile.
// @ts-expect-error commitSha is required
void (() => client.deploys.create({ workspaceId }));
// @ts-expect-error not a severity
const bad: Severity = 'urgent';
// @ts-expect-error no such path
void (() => client.raw.GET('/v1/nowhere'));
// @ts-expect-error webhook.test data has no deploy
void (() => (event.type === 'webhook.test' ? event.data.deploy : null));
type DeployPath = keyof paths;
const p: DeployPath = '/v1/deploys';
void bad; void p;

report.called = called;
console.log(JSON.stringify(report));
`;

describe('the packed packages', () => {
  it('@sitehealth/sdk: dist (ESM and CommonJS, with declarations) and README, and openapi-fetch its only runtime dependency, no Node built-in', () => {
    const files = packedSdk.files.map((f) => f.path).sort();
    for (const f of ['package.json', 'README.md', 'dist/esm/index.js', 'dist/esm/index.d.ts', 'dist/cjs/index.js', 'dist/cjs/index.d.ts', 'dist/cjs/package.json', 'dist/esm/webhooks.js', 'dist/cjs/webhooks.d.ts', 'dist/esm/signals/index.js', 'dist/cjs/signals/index.d.ts', 'dist/esm/generated/values.js']) {
      assert.ok(files.includes(f), `${f} is packed`);
    }
    assert.deepEqual(files.filter((f) => !/^(dist\/|README\.md$|package\.json$)/.test(f)), [], 'nothing else');
    assert.ok(!files.some((f) => f.endsWith('.ts') && !f.endsWith('.d.ts')), 'no sources');
    const pkg = JSON.parse(fs.readFileSync(path.join(installed('sdk'), 'package.json'), 'utf8'));
    assert.deepEqual(Object.keys(pkg.dependencies), ['openapi-fetch']);
    assert.equal(pkg.bin, undefined);
    assert.deepEqual([...importsOf(installed('sdk')).keys()], ['openapi-fetch']);
  });

  it('@sitehealth/cli: dist, bin and README; the SDK, commander and env-ci its dependencies', () => {
    const files = packedCli.files.map((f) => f.path).sort();
    for (const f of ['package.json', 'README.md', 'bin/sitehealth.mjs', 'bin/sitehealth-deploy.mjs', 'dist/index.js', 'dist/index.d.ts', 'dist/command/index.js']) {
      assert.ok(files.includes(f), `${f} is packed`);
    }
    assert.deepEqual(files.filter((f) => !/^(dist\/|bin\/|README\.md$|package\.json$)/.test(f)), [], 'nothing else');
    const pkg = JSON.parse(fs.readFileSync(path.join(installed('cli'), 'package.json'), 'utf8'));
    assert.deepEqual(Object.keys(pkg.dependencies).sort(), ['@sitehealth/sdk', 'commander', 'env-ci']);
    assert.deepEqual(pkg.bin, { sitehealth: './bin/sitehealth.mjs', 'sitehealth-deploy': './bin/sitehealth-deploy.mjs' });
    const imported = importsOf(installed('cli'));
    assert.deepEqual([...imported.keys()].filter((m) => !m.startsWith('node:')).sort(), ['@sitehealth/sdk', '@sitehealth/sdk/signals', 'commander', 'env-ci']);
    assert.ok(imported.get('commander')!.every((f) => f.startsWith(`command${path.sep}`)), 'only the command line loads commander');
  });

  it('the SDK loads through require() and import, one class per error either way', async () => {
    fs.writeFileSync(path.join(consumer, 'both.cjs'), `
const sdk = require('@sitehealth/sdk');
const { verifyWebhook } = require('@sitehealth/sdk/webhooks');
const { changesFromDiffText } = require('@sitehealth/sdk/signals');
const client = sdk.createClient({ apiKey: 'sh_x', baseUrl: 'http://127.0.0.1:9' });
import('@sitehealth/sdk').then((esm) => {
  console.log(JSON.stringify({
    cjs: [typeof sdk.createClient, typeof client.deploys.iterate, typeof verifyWebhook, typeof changesFromDiffText, new sdk.NotFoundError({ status: 404, code: 'not_found', title: 'x', detail: 'x' }) instanceof sdk.SiteHealthError],
    esm: [typeof esm.createClient, esm.VERSION === sdk.VERSION],
  }));
});
`);
    const res = await sh(process.execPath, ['both.cjs'], { cwd: consumer });
    assert.equal(res.code, 0, res.stderr);
    assert.deepEqual(JSON.parse(res.stdout), { cjs: ['function', 'function', 'function', 'function', true], esm: ['function', true] });
  });

  it('a CommonJS TypeScript project typechecks against the require() declarations', async () => {
    const dir = path.join(consumer, 'cjs-ts');
    fs.mkdirSync(dir, { recursive: true });
    fs.writeFileSync(path.join(dir, 'package.json'), JSON.stringify({ name: 'cjs-ts', private: true, type: 'commonjs' }));
    fs.writeFileSync(path.join(dir, 'main.ts'), `
import { createClient, NotFoundError, type DeployDetail } from '@sitehealth/sdk';
import { verifyWebhook } from '@sitehealth/sdk/webhooks';
const client = createClient({ apiKey: 'sh_x' });
export async function detail(id: string): Promise<DeployDetail | null> {
  try { const d = await client.deploys.get(id, { timeoutMs: 1000 }); return d.lastResponse.requestId ? d : d; } catch (e) { if (e instanceof NotFoundError) return null; throw e; }
}
export const verify = verifyWebhook;
`);
    fs.writeFileSync(path.join(dir, 'tsconfig.json'), JSON.stringify({
      compilerOptions: { target: 'ES2022', module: 'Node16', moduleResolution: 'Node16', strict: true, skipLibCheck: false, noEmit: true, lib: ['ES2022', 'DOM'], types: [] },
      files: ['main.ts'],
    }));
    const check = await sh(process.execPath, [tsc, '-p', 'tsconfig.json'], { cwd: dir });
    assert.equal(check.code, 0, `tsc:\n${check.stdout}${check.stderr}`);
  });

  it('a browser bundle of createClient and verifyWebhook builds with esbuild, without Node built-ins', async () => {
    fs.writeFileSync(path.join(consumer, 'browser.mjs'), `import { createClient, verifyWebhook } from '@sitehealth/sdk';\nexport const client = createClient({ apiKey: 'sh_x', baseUrl: 'https://sitehealth.example' });\nexport { verifyWebhook };\n`);
    const esbuild = await import('esbuild');
    const out = await esbuild.build({ entryPoints: [path.join(consumer, 'browser.mjs')], bundle: true, platform: 'browser', format: 'esm', write: false, metafile: true, logLevel: 'silent', absWorkingDir: consumer });
    const inputs = Object.keys(out.metafile.inputs);
    assert.ok(inputs.some((i) => i.includes('@sitehealth/sdk/dist/esm/client.js')), 'the SDK is in the bundle');
    assert.deepEqual(inputs.filter((i) => i.startsWith('node:') || !i.includes('node_modules') && !i.endsWith('browser.mjs')), []);
    assert.ok(!/\brequire\(/.test(out.outputFiles[0].text), 'nothing left to require');
  });

  describe('in a consumer project, against a live server', () => {
    let receiver: Receiver;
    let server: ServerProc;
    let db: Db;
    let apiKey: string;
    let workspaceId: string;
    let email: string;
    const password = 'consumer password 1';

    before(async () => {
      receiver = await startReceiver();
      const url = await freshDatabaseUrl('sqlite');
      server = await startServerProcess(url, { NODE_EXTRA_CA_CERTS: receiver.certFile, ALLOW_PRIVATE_NETWORK: '1', MAIL_DIR: path.join(os.tmpdir(), 'sitehealth-test-mail') });
      db = createDb(url);
      const u = await createUser(db, `consumer-${Date.now()}@example.com`);
      email = u.email;
      await setPassword(db, { userId: u.userId, password, action: 'password.set_by_operator', actor: operatorActor(), keepSession: null });
      workspaceId = (await createWorkspace(db, { accountId: u.accountId, userId: u.userId, input: { name: `Consumer ${Date.now()}`, website: 'https://www.example.com' } })).id;
      apiKey = (await createApiKey(db, { userId: u.userId, scopes: ['deploys', 'search', 'workspaces', 'webhooks', 'keys'] })).apiKey;
      // A few logged requests, written by the server's batch (every second) before the consumer reads them.
      for (let i = 0; i < 3; i++) await fetch(`${server.url}/v1/deploys?workspace_id=${workspaceId}`, { headers: { 'x-api-key': apiKey } });
      await new Promise((r) => setTimeout(r, 1500));
    });
    after(async () => {
      await db?.destroy();
      await receiver?.close();
    });

    it('typechecks a file that calls every resource method, and runs it', async (t: TestContext) => {
      t.diagnostic(`installed by ${installedBy}`);
      fs.writeFileSync(path.join(consumer, 'consumer.ts'), CONSUMER_TS);
      fs.writeFileSync(path.join(consumer, 'tsconfig.json'), JSON.stringify({
        compilerOptions: {
          target: 'ES2022', module: 'NodeNext', moduleResolution: 'NodeNext', strict: true, skipLibCheck: false,
          outDir: 'out', rootDir: '.', types: ['node'], typeRoots: [path.join(root, 'node_modules/@types')],
        },
        files: ['consumer.ts'],
      }));
      const check = await sh(process.execPath, [tsc, '-p', 'tsconfig.json'], { cwd: consumer });
      assert.equal(check.code, 0, `tsc:\n${check.stdout}${check.stderr}`);

      const commitSha = crypto.randomBytes(20).toString('hex');
      const res = await sh(process.execPath, ['out/consumer.js'], {
        cwd: consumer,
        env: { PATH: process.env.PATH, SITEHEALTH_URL: server.url, SITEHEALTH_API_KEY: apiKey, SITEHEALTH_EMAIL: email, SITEHEALTH_PASSWORD: password, WORKSPACE_ID: workspaceId, HOOK_URL: receiver.url('/consumer'), COMMIT_SHA: commitSha },
      });
      assert.equal(res.code, 0, `${res.stdout}\n${res.stderr}`);
      const report = JSON.parse(res.stdout.trim().split('\n').at(-1)!);

      // Every operation of the document was called through its resource method.
      const doc = JSON.parse(fs.readFileSync(path.join(root, 'generated/openapi.json'), 'utf8')) as { paths: Record<string, Record<string, { operationId?: string; 'x-signature'?: unknown }>> };
      // Inbound hooks (`x-signature`) are called by repository hosts, not through the SDK.
      const ids = Object.values(doc.paths).flatMap((m) => Object.values(m).filter((op) => !op['x-signature']).map((op) => op.operationId).filter(Boolean)) as string[];
      const asMethods = ids.map((id) => { const [tag, name] = id.split('_'); return `${tag[0].toLowerCase()}${tag.slice(1)}.${name}`; });
      assert.deepEqual(asMethods.filter((m) => !report.called.includes(m)), [], 'operations the consumer did not call');
      for (const m of ['logs.iterate', 'activity.iterate', 'webhooks.iterateDeliveries', 'apiKeys.iterate']) assert.ok(report.called.includes(m));
      assert.deepEqual(report.apiKeys, { secret: true, listed: true, replacedBy: true, prefix: true, iterated: 3 });
      assert.deepEqual(report.members, { count: 1, role: 'owner', invited: true, refusals: ['not_found', 'last_owner'] });
      assert.deepEqual(report.passkeys, { rp: true, listed: 0, refusals: ['passkey_invalid', 'not_found', 'passkey_rejected'] });
      assert.deepEqual(report.sso, [
        ['NotFoundError', 404, 'not_found'],
        ['ValidationError', 400, 'sso_provider_error'],
        ['NotFoundError', 404, 'not_found'],
        ['NotFoundError', 404, 'sso_not_configured'],
        ['ValidationError', 400, 'sso_state_invalid'],
      ]);
      assert.deepEqual(report.digests, { was: 'weekly', now: 'daily', deploys: true, html: true, refusals: ['not_found', 'not_found'] });
      assert.deepEqual(report.twoStep, ['string', 'invalid_two_step_code', 'two_step_not_started', 'two_step_not_started', 'two_step_expired']);
      assert.deepEqual(report.people, { email: true, csrf: true, devices: 1, statuses: [202, 202], others: 0, linkRefusals: ['link_invalid', 'link_invalid'], afterSignOut: 401 });
      assert.deepEqual(report.searchPerformance, { clicks: 0, rows: 0, compared: 0 });
      assert.deepEqual(report.searchConsole, {
        get: ['NotFoundError', 404, 'not_found'],
        connect: ['ServiceUnavailableError', 503, 'search_console_unconfigured'],
        sync: ['NotFoundError', 404, 'not_found'],
        disconnect: ['NotFoundError', 404, 'not_found'],
        callback: ['NotFoundError', 404, 'not_found'],
      });

      assert.equal(report.version, JSON.parse(fs.readFileSync(path.join(sdkDir, 'package.json'), 'utf8')).version);
      assert.equal(report.cliVersion, JSON.parse(fs.readFileSync(path.join(cliDir, 'package.json'), 'utf8')).version);
      assert.deepEqual(report.idempotent, { same: true, replayed: 'true', requestId: 'string', remaining: 'number' });
      assert.ok(report.workspaces.includes(workspaceId));
      assert.deepEqual(report.workspace, { created: true, description: 'from the tarball' });
      assert.equal(report.deploy.listed, true);
      assert.equal(report.deploy.findings, 0);
      assert.deepEqual(report.runs, { created: 201, again: 200, same: true, listed: true, detail: 'manual', crawl: 'manual', crawls: 1, crawlPages: 0, latestCrawl: true });
      assert.ok(report.logs.page > 0 && report.logs.iterated > 0);
      assert.ok(report.activity.page > 0 && report.activity.iterated > 0);
      assert.match(report.webhook.secret, /^whsec_/);
      assert.deepEqual({ ...report.webhook, id: undefined, secret: undefined }, {
        id: undefined, secret: undefined, listed: true, same: true, name: 'consumer 2', test: 'success', deliveries: 1, iterated: 1, redelivered: 'success', testWebhookId: report.webhook.id,
      });
      assert.deepEqual(report.notFound, { status: 404, code: 'not_found', requestId: true });
      assert.deepEqual(report.invalid, { status: 400, code: 'validation_failed', fields: ['/commitSha'] });
      assert.equal(report.verification, 'missing_header');
      assert.equal(report.raw, true);
      assert.deepEqual(report.diff, [{ path: 'public/robots.txt', category: 'robots', signals: [{ kind: 'robots_rule', change: 'added', line: 2 }] }]);
      assert.deepEqual(report.dryRun, { outcome: 'dry_run', body: { commitSha: 'abcdef1', changes: [{ path: 'index.html', category: 'page', signals: [] }] } });
      assert.equal(report.gate, 0);
      assert.deepEqual(report.connections, {
        listed: 0,
        create: ['UnprocessableError', 422, 'repository_unreachable'],
        update: ['NotFoundError', 404, 'not_found'],
        delete: ['NotFoundError', 404, 'not_found'],
        typed: 'UnprocessableError',
      });

      // The two deliveries reached the receiver, and the packed verifyWebhook accepts them.
      const packedWebhooks = await import(pathToFileURL(path.join(installed('sdk'), 'dist/esm/webhooks.js')).href);
      const got = receiver.received.filter((r) => r.path === '/consumer');
      assert.equal(got.length, 2);
      for (const r of got) {
        const event = await packedWebhooks.verifyWebhook({ secret: report.webhook.secret, headers: r.headers, body: r.body, requireBodySignature: true });
        assert.equal(event.type, 'webhook.test');
        assert.equal(r.headers['x-consumer'], 'yes');
      }
    });

    it('the installed bins run: sitehealth deploy records, sitehealth-deploy is its alias', async () => {
      const bin = (name: string) => installedBy === 'npm' ? path.join(consumer, 'node_modules/.bin', name) : path.join(installed('cli'), 'bin', `${name}.mjs`);
      const env = { PATH: process.env.PATH, HOME: os.tmpdir(), SITEHEALTH_API_KEY: apiKey, SITEHEALTH_URL: server.url, SITEHEALTH_WORKSPACE_ID: workspaceId };
      const help = await sh(bin('sitehealth'), ['deploy', '--help'], { cwd: consumer, env });
      assert.equal(help.code, 0, help.stderr);
      assert.match(help.stdout, /--fail-on <severity>/);
      const alias = await sh(bin('sitehealth-deploy'), ['--help'], { cwd: consumer, env });
      assert.equal(alias.code, 0, alias.stderr);

      const sha = crypto.randomBytes(20).toString('hex');
      const rec = await sh(bin('sitehealth'), ['deploy', '--commit', sha, '-e', 'staging', '--changed-files-from', '-', '--json'], { cwd: consumer, env, input: 'src/pages/index.astro\n' });
      assert.equal(rec.code, 0, rec.stderr);
      const out = JSON.parse(rec.stdout);
      assert.equal(out.outcome, 'recorded');
      assert.equal(out.deploy.commitSha, sha);
      assert.deepEqual(out.deploy.changes, [{ path: 'src/pages/index.astro', category: 'page', signals: [] }]);
      assert.ok(!rec.stdout.includes(apiKey) && !rec.stderr.includes(apiKey));
    });
  });
});
