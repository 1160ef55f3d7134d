// npm run bench:detection — does a deploy's check and crawl find a regression, at the right URL,
// and rank the deploy's true change first among its likely causes?
//
// For every scenario of the corpus (bench/lib/detection-corpus.ts): a fixture website on
// 127.0.0.1 serves the scenario's baseline site; a first deploy (no changes) makes the baseline
// check and crawl; the regression is applied to the site; a second deploy carries the true change
// and its decoys (category and signals from the SDK's CI analysis, in `git diff` order, i.e. by
// path); the worker runs its check and crawl; GET /v1/deploys/{id} gives `findings` and
// `crawlFindings`. All in one process: the real API server over a fresh SQLite database
// (test/support/api.ts) and the real job runner (test/support/jobs.ts), as the e2e tests do.
//
// Figures: recall (the expected kind at the expected URL), top-1 (the true change is causes[0],
// over the detected regressions), false positives (findings neither expected nor listed as the
// scenario's legitimate consequences) per 10 regressions, and the top-1 of a category-only floor
// ranker on the same findings. Writes bench/results/detection.md.
//
// Targets: recall >= 95%, top-1 >= 90%, at most 1 false positive per 10 regressions.
// Env: BENCH_ONLY=<text> runs the scenarios whose id contains it (no report is written).

import crypto from 'node:crypto';
import { execFileSync } from 'node:child_process';
import os from 'node:os';
import { performance } from 'node:perf_hooks';
import { loadConfig } from '../core/platform/index.ts';
import type { Schemas } from '../core/contract/index.ts';
import { CAUSES, CHECK_SEVERITY, CRAWL_SEVERITY, WEIGHTS, pathAffinity, routeSegments, urlSegments, type Cause, type FindingKind } from '../core/findings/index.ts';
import { TestApi } from '../test/support/api.ts';
import { dropCreatedDatabases } from '../test/support/databases.ts';
import { testRunner } from '../test/support/jobs.ts';
import { startFixtureSite, type FixtureSite } from '../test/support/fixture-site.ts';
import { ROOT, writeReport } from './lib/harness.ts';
import { CORPUS, FRAMEWORKS, type Scenario } from './lib/detection-corpus.ts';
import { toApiChange } from './lib/detection/changes.ts';
import { applyPatch, pageCount, publish, type SiteModel } from './lib/detection/site.ts';

// HTML checks: the scenarios have no rendered-check variants yet (a browser run is seconds a page).
const ENV = { SITE_CHECK_DELAY_SECONDS: '0', CRAWL_DELAY_SECONDS: '0', ALLOW_PRIVATE_NETWORK: '1', CRAWL_DELAY_MS: '0', RENDER_CHECKS: 'off' };
const TARGETS = { recall: 0.95, top1: 0.9, fpPer10: 1 };
const ONLY = process.env.BENCH_ONLY ?? '';

type Change = Schemas['Change'];
type Finding = { kind: FindingKind; url: string; causes: Cause[]; before?: unknown; after?: unknown; details?: Record<string, unknown> };
type Source = 'check' | 'crawl';
/** A finding as the report shows it: URL as a path, what it saw in a few words. */
type Seen = { source: Source; kind: FindingKind; url: string; detail: string };

interface Outcome {
  scenario: Scenario;
  changes: Change[];
  url: string;
  detected: boolean;
  /** The expected finding, when detected. */
  finding: Finding | null;
  /** 1-based rank of the true change among the finding's causes; null when it is not one. */
  rank: number | null;
  /** Whether the category-only ranker puts the true change first for the same finding. */
  floorTop1: boolean;
  /** Every finding of the deploy. */
  all: Seen[];
  falsePositives: Seen[];
  /** Findings that are listed consequences of the regression. */
  consequences: Seen[];
  /** The check or crawl did not finish, or the baseline already had findings. */
  problems: string[];
  seconds: number;
}

// ---------------------------------------------------------------------------------------------
// The corpus's own rules

const isCheckKind = (kind: FindingKind) => kind in CHECK_SEVERITY;
const kindsOf = (c: Change) => new Set((c.signals ?? []).map((s) => s.kind));

/** A path a person would tie to the URL: a literal route segment in common (or both the home page). */
function resembles(path: string, url: string): boolean {
  const file = routeSegments(path).filter((s) => s !== '*');
  const target = urlSegments(url);
  return target.length === 0 ? file.length === 0 : file.some((s) => target.includes(s));
}

/** The decoys that make the deploy a fair test: same category or a shared signal kind (not both), a path unlike the URL. */
function fairDecoys(truth: Change, decoys: Change[], url: string): Change[] {
  const kinds = kindsOf(truth);
  return decoys.filter((d) => {
    const category = d.category === truth.category;
    const signal = [...kindsOf(d)].some((k) => kinds.has(k));
    return category !== signal && !resembles(d.path, url);
  });
}

function validate(corpus: readonly Scenario[]): void {
  const errors: string[] = [];
  const ids = new Set<string>();
  for (const s of corpus) {
    const say = (m: string) => errors.push(`${s.id}: ${m}`);
    if (ids.has(s.id)) say('duplicate id');
    ids.add(s.id);
    const n = pageCount(s.site);
    if (n < 5 || n > 10) say(`${n} pages besides home (want 5 to 10)`);
    if (!s.site.pages[s.expect.url] && !s.site.redirects[s.expect.url] && !s.site.sitemaps[s.expect.url] && s.expect.kind !== 'broken_link') {
      say(`expected URL ${s.expect.url} is not on the baseline site`);
    }
    if (s.decoys.length < 2 || s.decoys.length > 4) say(`${s.decoys.length} decoys (want 2 to 4)`);
    const truth = toApiChange(s.trueChange);
    const decoys = s.decoys.map(toApiChange);
    if (fairDecoys(truth, decoys, s.expect.url).length === 0) say('no decoy shares exactly one of the true change\'s category and signal kinds with a path unlike the URL');
    if (new Set([truth, ...decoys].map((c) => c.path)).size !== decoys.length + 1) say('two changes have the same path');
    try {
      applyPatch(s.site, s.regression);
    } catch (err) {
      say(`regression: ${(err as Error).message}`);
    }
  }
  // The corpus as a whole: enough scenarios and frameworks, every check kind, most crawl kinds.
  const kinds = new Set(corpus.map((s) => s.expect.kind));
  const missingCheck = Object.keys(CHECK_SEVERITY).filter((k) => !kinds.has(k as FindingKind));
  // A kind both report (redirect_added) counts as a crawl kind only when a scenario expects it from the crawl.
  const crawlKinds = Object.keys(CRAWL_SEVERITY).filter((k) => !isCheckKind(k as FindingKind));
  if (corpus.length < 24) errors.push(`${corpus.length} scenarios (want at least 24)`);
  if (new Set(corpus.map((s) => s.framework)).size < 7) errors.push('fewer than 7 frameworks');
  if (missingCheck.length) errors.push(`check kinds without a scenario: ${missingCheck.join(', ')}`);
  if (crawlKinds.filter((k) => kinds.has(k as FindingKind)).length * 2 <= crawlKinds.length) errors.push('half the crawl kinds or fewer have a scenario');
  if (errors.length) throw new Error(`corpus errors:\n  ${errors.join('\n  ')}`);
}

// ---------------------------------------------------------------------------------------------
// Running one scenario

async function runScenario(api: TestApi, s: Scenario): Promise<Outcome> {
  const t0 = performance.now();
  const site = await startFixtureSite();
  const problems: string[] = [];
  try {
    const owner = await api.owner();
    const ws = await api.call('POST', '/v1/workspaces', { key: owner.apiKey, body: { name: `Detection ${s.id} ${crypto.randomUUID()}`, website: site.url('/') } });
    if (ws.status !== 201) throw new Error(`workspace: ${ws.status} ${ws.text}`);
    const deploy = async (changes: Change[]) => {
      const res = await api.call('POST', '/v1/deploys', { key: owner.apiKey, body: { workspaceId: ws.body.data.id, commitSha: crypto.randomBytes(20).toString('hex'), changes } });
      if (res.status !== 201) throw new Error(`deploy: ${res.status} ${res.text}`);
      await testRunner(api.db, { config: loadConfig({ ...process.env, ...ENV }) }).runDue();
      const d = (await api.call('GET', `/v1/deploys/${res.body.id}`, { key: owner.apiKey })).body;
      if (d.siteCheck?.state !== 'finished') problems.push(`check ${d.siteCheck?.state}: ${d.siteCheck?.error}`);
      if (d.siteCrawl?.state !== 'finished') problems.push(`crawl ${d.siteCrawl?.state}: ${d.siteCrawl?.error}`);
      return d as { findings: Finding[]; crawlFindings: Finding[] };
    };

    publish(site, s.site);
    const first = await deploy([]);
    if (first.findings.length || first.crawlFindings.length) problems.push('the baseline deploy has findings');

    const regressed = applyPatch(s.site, s.regression);
    publish(site, regressed);
    // git diff lists files by path.
    const changes = [s.trueChange, ...s.decoys].map(toApiChange).sort((a, b) => (a.path < b.path ? -1 : 1));
    const d = await deploy(changes);
    return evaluate(s, site, regressed, changes, d, problems, (performance.now() - t0) / 1000);
  } finally {
    await site.close();
  }
}

function evaluate(
  s: Scenario,
  site: FixtureSite,
  model: SiteModel,
  changes: Change[],
  d: { findings: Finding[]; crawlFindings: Finding[] },
  problems: string[],
  seconds: number,
): Outcome {
  const url = site.url(s.expect.url);
  const expectedSource: Source = isCheckKind(s.expect.kind) ? 'check' : 'crawl';
  const all = [
    ...d.findings.map((f) => ({ source: 'check' as const, f })),
    ...d.crawlFindings.map((f) => ({ source: 'crawl' as const, f })),
  ];
  const hit = all.find((x) => x.source === expectedSource && x.f.kind === s.expect.kind && x.f.url === url) ?? null;
  const accepted = (kind: FindingKind, u: string) => s.consequences.some((c) => c.kind === kind && site.url(c.url) === u);
  const rest = all.filter((x) => x !== hit);
  const path = (u: string) => (u.startsWith(site.origin) ? u.slice(site.origin.length) : u);
  const short = (x: (typeof all)[number]): Seen => ({ source: x.source, kind: x.f.kind, url: path(x.f.url), detail: detailOf(x.f, model, path) });
  const falsePositives = rest.filter((x) => !accepted(x.f.kind, x.f.url)).map(short);
  const consequences = rest.filter((x) => accepted(x.f.kind, x.f.url)).map(short);
  const finding = hit?.f ?? null;
  const truePath = s.trueChange.path;
  const index = finding ? finding.causes.findIndex((c) => c.path === truePath) : -1;
  return {
    scenario: s,
    changes,
    url,
    detected: finding !== null,
    finding,
    rank: index >= 0 ? index + 1 : null,
    floorTop1: finding !== null && floorRank(s.expect.kind, changes)[0]?.path === truePath,
    all: all.map(short),
    falsePositives,
    consequences,
    problems,
    seconds,
  };
}

/** What a finding saw, in a few words: before -> after for a check finding, the details of a crawl finding. */
function detailOf(f: Finding, model: SiteModel, path: (u: string) => string): string {
  if (f.details === undefined) return `${JSON.stringify(f.before)} -> ${JSON.stringify(f.after)}`;
  const text = JSON.stringify(f.details, (_k, v: unknown) => (typeof v === 'string' ? path(v) : v));
  // A duplicate title shared with a URL that only redirects to the page is not two pages with one title.
  const others = Array.isArray(f.details.others) ? (f.details.others as string[]).map(path) : [];
  const redirecting = others.filter((u) => model.redirects[u]);
  return redirecting.length ? `${text}; ${redirecting.map((u) => `${u} is a redirect (to ${model.redirects[u]})`).join(', ')}` : text;
}

/** The floor: the cause table's category weight alone; ties keep the deploy's order; weight 0 is no cause. */
function floorRank(kind: FindingKind, changes: Change[]): Change[] {
  return changes
    .map((c, i) => ({ c, i, w: CAUSES[kind].categories[c.category] ?? 0 }))
    .filter((x) => x.w > 0)
    .sort((a, b) => b.w - a.w || a.i - b.i)
    .map((x) => x.c);
}

/** The parts of a change's score for a finding (causes.ts): the raw weights and the weighted terms. */
function parts(kind: FindingKind, url: string, c: Change) {
  const table = CAUSES[kind];
  const signal = Math.max(0, ...(c.signals ?? []).map((s) => table.signals[s.kind]?.[s.change] ?? 0));
  const category = table.categories[c.category] ?? 0;
  const path = pathAffinity(c.path, url).score;
  const terms = { signal: WEIGHTS.signal * signal, category: WEIGHTS.category * category, path: WEIGHTS.path * path };
  return { signal, category, path, terms, cause: signal > 0 || category > 0, total: Math.min(1, terms.signal + terms.category + terms.path) };
}

function breakdown(kind: FindingKind, url: string, c: Change): string {
  const p = parts(kind, url, c);
  if (!p.cause) return `\`${c.path}\`: not a cause (no signal or category of the kind)`;
  return `\`${c.path}\` = ${WEIGHTS.signal} × ${p.signal} (signal) + ${WEIGHTS.category} × ${p.category} (${c.category}) + ${WEIGHTS.path} × ${round(p.path)} (path) = ${round(p.total)}`;
}

/** Why the top cause beat the true change: the difference of each term, or the tie rule. */
function whyMissed(kind: FindingKind, url: string, top: Change, truth: Change, changes: Change[]): string {
  const a = parts(kind, url, top);
  const b = parts(kind, url, truth);
  if (!b.cause) return `\`${truth.path}\` is no cause of ${kind}: neither its category (${truth.category}) nor its signals (${signalsText(truth)}) are in the cause table for the kind.`;
  if (round(a.total) === round(b.total)) {
    return `Tie at ${round(a.total)}: ties keep the deploy's order, and \`${top.path}\` comes first (${changes.indexOf(top) + 1} of ${changes.length} by path).`;
  }
  const diff = (k: keyof typeof a.terms) => {
    const d = round(a.terms[k] - b.terms[k]);
    return `${k} ${d >= 0 ? '+' : ''}${d}`;
  };
  return `\`${top.path}\` leads by ${round(a.total - b.total)} (${diff('signal')}, ${diff('category')}, ${diff('path')}).`;
}

// ---------------------------------------------------------------------------------------------
// Report

const round = (n: number) => Math.round(n * 1000) / 1000;
const pct = (n: number, of: number) => (of === 0 ? 'n/a' : `${((n / of) * 100).toFixed(1)}%`);
const signalsText = (c: Change) => (c.signals?.length ? [...new Set(c.signals.map((s) => `${s.kind} ${s.change}`))].join(', ') : 'no signals');
const cell = (s: string) => s.replace(/\|/g, '\\|');

interface Figures {
  n: number;
  detected: number;
  top1: number;
  floorTop1: number;
  fp: number;
  recall: number;
  top1Share: number;
  floorShare: number;
  fpPer10: number;
}

function figures(outcomes: Outcome[]): Figures {
  const n = outcomes.length;
  const detected = outcomes.filter((o) => o.detected);
  const top1 = detected.filter((o) => o.rank === 1).length;
  const floorTop1 = detected.filter((o) => o.floorTop1).length;
  const fp = outcomes.reduce((a, o) => a + o.falsePositives.length, 0);
  return {
    n,
    detected: detected.length,
    top1,
    floorTop1,
    fp,
    recall: detected.length / n,
    top1Share: detected.length ? top1 / detected.length : 0,
    floorShare: detected.length ? floorTop1 / detected.length : 0,
    fpPer10: (fp / n) * 10,
  };
}

function verdicts(f: Figures): string[] {
  const v = (ok: boolean) => (ok ? '**MET**' : '**MISSED**');
  return [
    `- recall >= ${TARGETS.recall * 100}%: ${v(f.recall >= TARGETS.recall)} (${pct(f.detected, f.n)}, ${f.detected} of ${f.n})`,
    `- top-1 >= ${TARGETS.top1 * 100}%: ${v(f.top1Share >= TARGETS.top1)} (${pct(f.top1, f.detected)}, ${f.top1} of ${f.detected} detected)`,
    `- at most ${TARGETS.fpPer10} false positive per 10 regressions: ${v(f.fpPer10 <= TARGETS.fpPer10)} (${f.fpPer10.toFixed(2)} per 10, ${f.fp} in ${f.n} regressions)`,
  ];
}

function git(args: string[]): string | null {
  try {
    return execFileSync('git', args, { cwd: ROOT, encoding: 'utf8' }).trim();
  } catch {
    return null;
  }
}

function report(outcomes: Outcome[], seconds: number, loadAtStart: number[]): string[] {
  const f = figures(outcomes);
  const commit = git(['rev-parse', '--short', 'HEAD']) ?? 'unknown';
  const dirty = (git(['status', '--porcelain', '--', 'core', 'worker', 'sdk/src', 'cli/src']) ?? '').split('\n').filter(Boolean).length;
  const load = (l: number[]) => l.map((x) => x.toFixed(2)).join(' / ');
  const frameworks = (Object.keys(FRAMEWORKS) as Array<keyof typeof FRAMEWORKS>).filter((k) => outcomes.some((o) => o.scenario.framework === k));
  const kinds = new Set(outcomes.map((o) => o.scenario.expect.kind));
  const checkKinds = Object.keys(CHECK_SEVERITY) as FindingKind[];
  const crawlKinds = Object.keys(CRAWL_SEVERITY) as FindingKind[];
  const crawlExpected = new Set(outcomes.filter((o) => !isCheckKind(o.scenario.expect.kind)).map((o) => o.scenario.expect.kind));
  const lines: string[] = [
    '# bench:detection: regressions found, and their true cause ranked first',
    '',
    `- Date: ${new Date().toISOString()}`,
    `- Machine: \`nproc\` = ${os.availableParallelism()} (${os.cpus()[0]?.model ?? 'unknown CPU'}), ${Math.round(os.totalmem() / 2 ** 30)} GiB RAM, ${os.platform()} ${os.release()}; load average (1/5/15 min) ${load(loadAtStart)} at start, ${load(os.loadavg())} at the end`,
    `- Node.js ${process.version}; commit ${commit}${dirty ? ` plus uncommitted changes in ${dirty} file(s) under core/, worker/, sdk/src/ and cli/src/ (the working tree was measured)` : ''}`,
    '- Command: `npm run bench:detection` (bench/detection.ts; corpus in bench/lib/detection-corpus.ts and bench/lib/detection/)',
    `- Run time: ${seconds.toFixed(0)} s for ${f.n} scenarios (two deploys each, with their checks and crawls)`,
    '',
    '## Method',
    '',
    `${f.n} scenarios, each one realistic regression on a small website (a home page and 5 to 10 linked pages, all in the sitemap) built with one of ${frameworks.length} frameworks' file layouts (${frameworks.map((k) => FRAMEWORKS[k]).join(', ')}), plus hosting files (\`_redirects\`, \`_headers\`, \`netlify.toml\`, robots templates). ` +
      `Expected kinds: all ${checkKinds.filter((k) => kinds.has(k)).length} of ${checkKinds.length} check kinds and ${crawlKinds.filter((k) => crawlExpected.has(k)).length} of ${crawlKinds.length} crawl kinds (\`redirect_added\`, which both report, is expected from the check).`,
    '',
    '- A fixture website on 127.0.0.1 (test/support/fixture-site.ts) serves the baseline site; a first deploy without changes makes the baseline check (home + key pages) and crawl.',
    '- The regression is applied to the site; a second deploy (POST /v1/deploys) carries the true change and 2 to 4 decoys, in `git diff` order (by path). Each change is written in the corpus as the lines of its diff; its category and signals come from the SDK\'s CI analysis (`categorize`, `detectSignals`), as `changesFromGit` would send them. In every deploy at least one decoy shares the true change\'s category or one of its signal kinds (not both) and has no route segment in common with the URL.',
    '- The real job runner runs the check and crawl jobs (SITE_CHECK_DELAY_SECONDS=0, CRAWL_DELAY_SECONDS=0, CRAWL_DELAY_MS=0) against the real API server over a fresh SQLite database; the findings are read from GET /v1/deploys/{id}.',
    '- **Recall**: the expected kind at the expected URL (in `findings` for check kinds, `crawlFindings` for crawl kinds). **Top-1**: over detected regressions, the true change is `causes[0]`. **False positives**: every other finding (check and crawl) that is not one of the scenario\'s listed consequences (e.g. removing a linked page also gives `broken_link` in the crawl and `page_not_found` in the check). **Category-only floor**: on the same findings, changes ranked by the cause table\'s category weight for the kind alone (`CAUSES` in core/findings), ties in deploy order.',
    '',
    '## Results',
    '',
    '| figure | value | target |',
    '|---|---:|---|',
    `| recall | ${pct(f.detected, f.n)} (${f.detected}/${f.n}) | >= ${TARGETS.recall * 100}% |`,
    `| top-1 (true change is causes[0]) | ${pct(f.top1, f.detected)} (${f.top1}/${f.detected}) | >= ${TARGETS.top1 * 100}% |`,
    `| false positives per 10 regressions | ${f.fpPer10.toFixed(2)} (${f.fp} in ${f.n}) | <= ${TARGETS.fpPer10} |`,
    `| top-1 of the category-only floor | ${pct(f.floorTop1, f.detected)} (${f.floorTop1}/${f.detected}) | reference |`,
    '',
    'Targets:',
    '',
    ...verdicts(f),
    '',
    '## Per scenario',
    '',
    'Rank: of the true change among the finding\'s causes (— when it is not one). Floor: whether the category-only ranker puts it first. Consequences: the accepted findings the deploy also had. FP: false positives (kind at path; check or crawl).',
    '',
    '| # | scenario | framework | kind | URL | detected | rank | floor | top cause (score): reason | consequences | FP |',
    '|---:|---|---|---|---|---|---:|---|---|---|---|',
  ];
  outcomes.forEach((o, i) => {
    const s = o.scenario;
    const top = o.finding?.causes[0];
    const topText = top ? `\`${top.path}\` (${top.score}): ${top.reason}` : o.finding ? 'no cause' : '—';
    const list = (xs: Outcome['all']) => xs.map((x) => `${x.kind} at ${x.url} (${x.source})`).join('; ');
    const fps = list(o.falsePositives) || '0';
    lines.push(
      `| ${i + 1} | ${s.id} | ${FRAMEWORKS[s.framework]} | ${s.expect.kind} | ${s.expect.url} | ${o.detected ? 'yes' : '**no**'} | ${o.rank ?? '—'}${o.rank !== null && o.rank > 1 ? ' ✗' : ''} | ${o.detected ? (o.floorTop1 ? 'yes' : 'no') : '—'} | ${cell(topText)} | ${cell(list(o.consequences) || '—')} | ${cell(fps)} |`,
    );
  });

  const misses = outcomes.filter((o) => !o.detected || o.rank !== 1 || o.falsePositives.length || o.problems.length);
  lines.push('', '## What was missed, and why', '');
  if (!misses.length) lines.push('Nothing: every regression was found, its true change ranked first, and no false positive.');
  for (const o of misses) {
    const s = o.scenario;
    lines.push(`### ${s.id} (${s.expect.kind} at ${s.expect.url})`, '', s.description, '');
    for (const p of o.problems) lines.push(`- Problem: ${p}`);
    if (!o.detected) lines.push(`- Not detected. The deploy's findings: ${o.all.map((x) => `${x.kind} at ${x.url} (${x.source})`).join('; ') || 'none'}.`);
    if (o.finding && o.rank !== 1) {
      lines.push(`- The true change ranked ${o.rank ?? 'nowhere'}. Causes as ranked: ${o.finding.causes.map((c) => `\`${c.path}\` ${c.score}`).join(', ') || 'none'}.`);
      const top = o.changes.find((c) => c.path === o.finding!.causes[0]?.path);
      const truth = o.changes.find((c) => c.path === s.trueChange.path)!;
      if (top) lines.push(`- ${whyMissed(s.expect.kind, o.url, top, truth, o.changes)}`);
      lines.push('- Scores (core/findings/causes.ts):');
      for (const c of o.changes) lines.push(`  - ${c.path === s.trueChange.path ? '**true** ' : ''}${breakdown(s.expect.kind, o.url, c)}; ${c.category}, ${signalsText(c)}`);
    }
    for (const x of o.falsePositives) lines.push(`- False positive: ${x.kind} at ${x.url} (${x.source}): ${cell(x.detail)}.`);
    lines.push('');
  }

  lines.push('## The corpus', '', 'Each deploy as the SDK describes it (category: signals). The true change is first; "fair" marks the decoys that share exactly one of its category and signal kinds with a path unlike the URL. Accepted consequences are the findings besides the expected one that the regression legitimately causes.', '');
  lines.push('| scenario | what happened | true change | decoys | accepted consequences |', '|---|---|---|---|---|');
  for (const o of outcomes) {
    const s = o.scenario;
    const truth = o.changes.find((c) => c.path === s.trueChange.path)!;
    const decoys = o.changes.filter((c) => c !== truth);
    const fair = new Set(fairDecoys(truth, decoys, s.expect.url));
    const describe = (c: Change) => `\`${c.path}\` (${c.category}: ${signalsText(c)})`;
    const conseq = s.consequences.map((c) => `${c.kind} at ${c.url}: ${c.why}`).join('; ') || '—';
    lines.push(`| ${s.id} | ${cell(s.description)} | ${cell(describe(truth))} | ${cell(decoys.map((c) => `${describe(c)}${fair.has(c) ? ' fair' : ''}`).join('<br>'))} | ${cell(conseq)} |`);
  }
  return lines;
}

// ---------------------------------------------------------------------------------------------

async function main(): Promise<void> {
  const loadAtStart = os.loadavg();
  validate(CORPUS);
  const corpus = CORPUS.filter((s) => s.id.includes(ONLY));
  if (!corpus.length) throw new Error(`no scenario id contains "${ONLY}"`);
  console.log(`bench:detection: ${corpus.length} scenario(s), ${new Set(corpus.map((s) => s.framework)).size} frameworks`);
  const t0 = performance.now();
  const api = await TestApi.start('sqlite', { env: ENV });
  const outcomes: Outcome[] = [];
  try {
    for (const [i, s] of corpus.entries()) {
      const o = await runScenario(api, s);
      outcomes.push(o);
      const top = o.finding?.causes[0];
      console.log(
        `[${String(i + 1).padStart(2)}/${corpus.length}] ${s.id.padEnd(36)} ${s.expect.kind.padEnd(24)} ${o.detected ? 'found' : 'NOT FOUND'}` +
          `${o.detected ? `, true cause #${o.rank ?? '-'}${o.rank === 1 ? '' : ` (top: ${top?.path ?? 'none'} ${top?.score ?? ''})`}` : ''}` +
          `, ${o.falsePositives.length} FP${o.falsePositives.length ? ` (${o.falsePositives.map((x) => `${x.kind} ${x.url}`).join(', ')})` : ''}` +
          `${o.problems.length ? `, problems: ${o.problems.join('; ')}` : ''}, ${o.seconds.toFixed(1)} s`,
      );
    }
  } finally {
    await api.stop();
    await dropCreatedDatabases();
  }
  const seconds = (performance.now() - t0) / 1000;
  const f = figures(outcomes);
  console.log(`\nrecall ${pct(f.detected, f.n)}, top-1 ${pct(f.top1, f.detected)}, category-only floor top-1 ${pct(f.floorTop1, f.detected)}, ${f.fpPer10.toFixed(2)} false positives per 10 regressions; ${seconds.toFixed(0)} s`);
  for (const line of verdicts(f)) console.log(line.replace(/\*\*/g, ''));
  if (ONLY) console.log('\n(BENCH_ONLY set: no report written)');
  else writeReport('detection.md', report(outcomes, seconds, loadAtStart));
}

let stopping = false;
process.on('SIGINT', () => {
  if (stopping) process.exit(130);
  stopping = true;
  console.error('\ninterrupted: cleaning up');
  void dropCreatedDatabases().finally(() => process.exit(130));
});

main().catch((err: Error) => {
  process.exitCode = 1;
  const frames = (err.stack ?? '').split('\n').filter((l) => l.trimStart().startsWith('at ')).slice(0, 8);
  console.error(`${err.name}: ${err.message}\n${frames.join('\n')}`);
});
