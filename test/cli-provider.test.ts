// CI provider detection for `sitehealth deploy`: GitHub Actions (push and pull request), GitLab
// CI (push and merge request), CircleCI, outside CI, and the explicit / SITEHEALTH_* overrides.
// Every case passes its own `env`, so the machine running the tests does not leak in.
import { describe, it, before, after } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { detectCi, type CiInfo } from '@sitehealth/cli';
import { GitRepo, lines } from './support/git-repo.ts';

const OTHER_SHA = 'a1b2c3d4e5f60718293a4b5c6d7e8f9012345678';
const ZERO_SHA = '0000000000000000000000000000000000000000';

let repo: GitRepo;
let single: GitRepo;
let first: string;
let second: string;
let eventDir: string;

before(() => {
  repo = GitRepo.create();
  first = repo.commit('one', { 'index.html': lines('<title>One</title>') });
  second = repo.commit('two', { 'index.html': lines('<title>Two</title>') });
  single = GitRepo.create();
  single.commit('only', { 'index.html': lines('<title>Only</title>') });
  eventDir = fs.mkdtempSync(path.join(os.tmpdir(), 'sitehealth-ci-event-'));
});
after(() => {
  repo.dispose();
  single.dispose();
  fs.rmSync(eventDir, { recursive: true, force: true });
});

function eventFile(name: string, payload: unknown): string {
  const file = path.join(eventDir, name);
  fs.writeFileSync(file, JSON.stringify(payload));
  return file;
}

const github = (extra: Record<string, string>) => ({
  CI: 'true',
  GITHUB_ACTIONS: 'true',
  GITHUB_SHA: second,
  GITHUB_RUN_ID: '99',
  GITHUB_REPOSITORY: 'acme/site',
  GITHUB_SERVER_URL: 'https://github.com',
  ...extra,
});
const gitlab = (extra: Record<string, string>) => ({
  CI: 'true',
  GITLAB_CI: 'true',
  CI_COMMIT_SHA: second,
  CI_PIPELINE_ID: '7',
  CI_JOB_ID: '8',
  CI_PROJECT_URL: 'https://gitlab.com/acme/site',
  CI_PROJECT_PATH: 'acme/site',
  ...extra,
});
const circle = (extra: Record<string, string>) => ({
  CI: 'true',
  CIRCLECI: 'true',
  CIRCLE_SHA1: second,
  CIRCLE_BUILD_NUM: '5',
  CIRCLE_PROJECT_USERNAME: 'acme',
  CIRCLE_PROJECT_REPONAME: 'site',
  ...extra,
});

const GITHUB = { isCi: true, provider: 'github', providerName: 'GitHub Actions', runUrl: 'https://github.com/acme/site/actions/runs/99' } as const;
const GITLAB = { isCi: true, provider: 'gitlab', providerName: 'GitLab CI/CD', runUrl: 'https://gitlab.com/acme/site/pipelines/7' } as const;
const CIRCLE = { isCi: true, provider: 'circleci', providerName: 'CircleCI' } as const;

describe('detectCi: GitHub Actions', () => {
  it('push: commit, branch, and the event payload\'s before as the base', async () => {
    const env = github({
      GITHUB_EVENT_NAME: 'push',
      GITHUB_REF: 'refs/heads/main',
      GITHUB_REF_NAME: 'main',
      GITHUB_EVENT_PATH: eventFile('push.json', { before: OTHER_SHA, after: second, ref: 'refs/heads/main' }),
    });
    assert.deepEqual(await detectCi({ env, cwd: repo.dir }), {
      ...GITHUB, isPr: false, commit: second, ref: 'main', base: OTHER_SHA, baseSource: 'github-push', warnings: [],
    } satisfies CiInfo);
  });

  it('push of a tag: the tag name is the ref', async () => {
    const env = github({
      GITHUB_EVENT_NAME: 'push',
      GITHUB_REF: 'refs/tags/v1.2.0',
      GITHUB_REF_NAME: 'v1.2.0',
      GITHUB_EVENT_PATH: eventFile('tag.json', { before: first, after: second }),
    });
    const ci = await detectCi({ env, cwd: repo.dir });
    assert.equal(ci.ref, 'v1.2.0');
    assert.equal(ci.base, first);
  });

  it('push of a new branch: a zero before-SHA means no base, so the parent commit is used', async () => {
    const env = github({
      GITHUB_EVENT_NAME: 'push',
      GITHUB_REF: 'refs/heads/feature',
      GITHUB_REF_NAME: 'feature',
      GITHUB_EVENT_PATH: eventFile('new-branch.json', { before: ZERO_SHA, after: second, created: true }),
    });
    assert.deepEqual(await detectCi({ env, cwd: repo.dir }), {
      ...GITHUB, isPr: false, commit: second, ref: 'feature', base: first, baseSource: 'parent', warnings: [],
    } satisfies CiInfo);
    // The same in a clone whose commit has no parent: no base at all.
    const lone = single.git('rev-parse', 'HEAD').trim();
    assert.deepEqual(await detectCi({ env: { ...env, GITHUB_SHA: lone }, cwd: single.dir }), {
      ...GITHUB, isPr: false, commit: lone, ref: 'feature', baseSource: 'none', warnings: [],
    } satisfies CiInfo);
  });

  it('pull_request: the source branch as ref and the payload\'s base SHA', async () => {
    const env = github({
      GITHUB_EVENT_NAME: 'pull_request',
      GITHUB_REF: 'refs/pull/7/merge',
      GITHUB_REF_NAME: '7/merge',
      GITHUB_HEAD_REF: 'feature/seo',
      GITHUB_BASE_REF: 'main',
      GITHUB_EVENT_PATH: eventFile('pr.json', {
        number: 7,
        pull_request: { number: 7, base: { ref: 'main', sha: OTHER_SHA }, head: { ref: 'feature/seo', sha: first } },
      }),
    });
    assert.deepEqual(await detectCi({ env, cwd: repo.dir }), {
      ...GITHUB, isPr: true, commit: second, ref: 'feature/seo', base: OTHER_SHA, baseSource: 'github-pull-request', environment: 'preview', environmentSource: 'pull-request', warnings: [],
    } satisfies CiInfo);
  });

  it('pull_request without a payload: the target branch as fetched', async () => {
    const env = github({
      GITHUB_EVENT_NAME: 'pull_request',
      GITHUB_REF: 'refs/pull/7/merge',
      GITHUB_HEAD_REF: 'feature/seo',
      GITHUB_BASE_REF: 'main',
    });
    const ci = await detectCi({ env, cwd: repo.dir });
    assert.equal(ci.isPr, true);
    assert.equal(ci.ref, 'feature/seo');
    assert.equal(ci.base, 'origin/main');
    assert.equal(ci.baseSource, 'github-pull-request');
  });

  it('an unreadable event payload is a warning, not a failure', async () => {
    const missing = path.join(eventDir, 'missing.json');
    const ci = await detectCi({ env: github({ GITHUB_EVENT_NAME: 'push', GITHUB_REF_NAME: 'main', GITHUB_EVENT_PATH: missing }), cwd: repo.dir });
    assert.equal(ci.base, first);
    assert.equal(ci.baseSource, 'parent');
    assert.equal(ci.warnings.length, 1);
    assert.match(ci.warnings[0], /^cannot read the GitHub event payload .*missing\.json: ENOENT/);
    // pull_request_target makes env-ci itself read the payload: the service and commit survive.
    const target = await detectCi({
      env: github({ GITHUB_EVENT_NAME: 'pull_request_target', GITHUB_HEAD_REF: 'fork/fix', GITHUB_BASE_REF: 'main', GITHUB_EVENT_PATH: missing }),
      cwd: repo.dir,
    });
    assert.equal(target.provider, 'github');
    assert.equal(target.commit, second);
    assert.equal(target.ref, 'fork/fix');
    assert.equal(target.base, 'origin/main');
    assert.equal(target.warnings.length, 2);
    assert.match(target.warnings[0], /^CI detection could not read everything: ENOENT/);
  });
});

describe('detectCi: GitLab CI', () => {
  it('push: CI_COMMIT_BEFORE_SHA as the base', async () => {
    const env = gitlab({ CI_COMMIT_REF_NAME: 'main', CI_COMMIT_BEFORE_SHA: first });
    assert.deepEqual(await detectCi({ env, cwd: repo.dir }), {
      ...GITLAB, isPr: false, commit: second, ref: 'main', base: first, baseSource: 'gitlab-push', warnings: [],
    } satisfies CiInfo);
  });

  it('push of a new branch (zero before-SHA) falls back to the parent; a tag is the ref', async () => {
    const ci = await detectCi({ env: gitlab({ CI_COMMIT_REF_NAME: 'v2.0.0', CI_COMMIT_TAG: 'v2.0.0', CI_COMMIT_BEFORE_SHA: ZERO_SHA }), cwd: repo.dir });
    assert.equal(ci.ref, 'v2.0.0');
    assert.equal(ci.base, first);
    assert.equal(ci.baseSource, 'parent');
  });

  it('merge request: the source branch and CI_MERGE_REQUEST_DIFF_BASE_SHA', async () => {
    const env = gitlab({
      CI_COMMIT_REF_NAME: 'feature/x',
      CI_COMMIT_BEFORE_SHA: ZERO_SHA,
      CI_MERGE_REQUEST_ID: '42',
      CI_MERGE_REQUEST_IID: '3',
      CI_MERGE_REQUEST_SOURCE_BRANCH_NAME: 'feature/x',
      CI_MERGE_REQUEST_TARGET_BRANCH_NAME: 'main',
      CI_MERGE_REQUEST_DIFF_BASE_SHA: OTHER_SHA,
    });
    assert.deepEqual(await detectCi({ env, cwd: repo.dir }), {
      ...GITLAB, isPr: true, commit: second, ref: 'feature/x', base: OTHER_SHA, baseSource: 'gitlab-merge-request', environment: 'preview', environmentSource: 'pull-request', warnings: [],
    } satisfies CiInfo);
  });
});

describe('detectCi: CircleCI', () => {
  it('CIRCLE_SHA1 and CIRCLE_BRANCH; the base from a mapped pipeline.git.base_revision', async () => {
    assert.deepEqual(await detectCi({ env: circle({ CIRCLE_BRANCH: 'main', CIRCLE_BASE_REVISION: OTHER_SHA }), cwd: repo.dir }), {
      ...CIRCLE, isPr: false, commit: second, ref: 'main', base: OTHER_SHA, baseSource: 'circleci', warnings: [],
    } satisfies CiInfo);
    const alt = await detectCi({ env: circle({ CIRCLE_BRANCH: 'main', PIPELINE_GIT_BASE_REVISION: first }), cwd: repo.dir });
    assert.equal(alt.base, first);
    assert.equal(alt.baseSource, 'circleci');
  });

  it('without a base variable: the parent commit', async () => {
    const ci = await detectCi({ env: circle({ CIRCLE_BRANCH: 'main' }), cwd: repo.dir });
    assert.equal(ci.base, first);
    assert.equal(ci.baseSource, 'parent');
  });
});

describe('detectCi: the environment from the CI context', () => {
  const detected = async (env: Record<string, string>) => {
    const ci = await detectCi({ env, cwd: repo.dir });
    return [ci.environment, ci.environmentSource];
  };

  it('a pull or merge request is a preview; a push names none (the server records production)', async () => {
    const pr = github({ GITHUB_EVENT_NAME: 'pull_request', GITHUB_HEAD_REF: 'f', GITHUB_BASE_REF: 'main', GITHUB_EVENT_PATH: eventFile('pr-env.json', { number: 3, pull_request: { number: 3, base: { sha: first } } }) });
    assert.deepEqual(await detected(pr), ['preview', 'pull-request']);
    assert.deepEqual(await detected(gitlab({ CI_MERGE_REQUEST_ID: '4', CI_MERGE_REQUEST_IID: '4', CI_MERGE_REQUEST_SOURCE_BRANCH_NAME: 'f', CI_MERGE_REQUEST_TARGET_BRANCH_NAME: 'main', CI_ENVIRONMENT_NAME: 'review/f' })), ['preview', 'pull-request']);
    assert.deepEqual(await detected(github({ GITHUB_EVENT_NAME: 'push', GITHUB_REF_NAME: 'main', GITHUB_EVENT_PATH: eventFile('push-env.json', { before: first }) })), [undefined, undefined]);
  });

  it("GitLab's CI_ENVIRONMENT_NAME, a GitHub deployment's environment, VERCEL_ENV and Netlify's CONTEXT", async () => {
    assert.deepEqual(await detected(gitlab({ CI_COMMIT_REF_NAME: 'main', CI_ENVIRONMENT_NAME: 'staging' })), ['staging', 'CI_ENVIRONMENT_NAME']);
    const deployment = eventFile('deployment.json', { deployment: { environment: 'qa', sha: second } });
    assert.deepEqual(await detected(github({ GITHUB_EVENT_NAME: 'deployment', GITHUB_EVENT_PATH: deployment })), ['qa', 'github-deployment']);
    assert.deepEqual(await detected({ CI: 'true', VERCEL: '1', VERCEL_ENV: 'preview', VERCEL_GIT_COMMIT_SHA: second }), ['preview', 'VERCEL_ENV']);
    for (const [context, environment] of [['production', 'production'], ['deploy-preview', 'preview'], ['branch-deploy', 'preview'], ['dev', 'development']]) {
      assert.deepEqual(await detected({ CI: 'true', NETLIFY: 'true', CONTEXT: context, COMMIT_REF: second }), [environment, 'CONTEXT'], context);
    }
    // A named environment wins over the context, a pull request included.
    assert.deepEqual(await detected({ ...gitlab({ CI_ENVIRONMENT_NAME: 'staging' }), SITEHEALTH_ENVIRONMENT: 'production' }), ['production', 'SITEHEALTH_ENVIRONMENT']);
  });
});

describe('detectCi: overrides and fallbacks', () => {
  it('SITEHEALTH_* variables override detection', async () => {
    const env = {
      ...github({ GITHUB_EVENT_NAME: 'push', GITHUB_REF_NAME: 'main', GITHUB_EVENT_PATH: eventFile('o.json', { before: first }) }),
      SITEHEALTH_COMMIT: OTHER_SHA,
      SITEHEALTH_REF: 'release',
      SITEHEALTH_BASE: 'v1.0.0',
      SITEHEALTH_ENVIRONMENT: 'staging',
    };
    assert.deepEqual(await detectCi({ env, cwd: repo.dir }), {
      ...GITHUB, isPr: false, commit: OTHER_SHA, ref: 'release', base: 'v1.0.0', baseSource: 'SITEHEALTH_BASE', environment: 'staging', environmentSource: 'SITEHEALTH_ENVIRONMENT', warnings: [],
    } satisfies CiInfo);
  });

  it('explicit options override the variables', async () => {
    const env = { ...gitlab({ CI_COMMIT_REF_NAME: 'main', CI_COMMIT_BEFORE_SHA: first }), SITEHEALTH_COMMIT: OTHER_SHA, SITEHEALTH_BASE: 'v1.0.0', SITEHEALTH_ENVIRONMENT: 'staging' };
    const ci = await detectCi({ env, cwd: repo.dir, commit: first, ref: 'hotfix', base: second, environment: 'production' });
    assert.deepEqual(ci, {
      ...GITLAB, isPr: false, commit: first, ref: 'hotfix', base: second, baseSource: 'option', environment: 'production', environmentSource: 'option', warnings: [],
    } satisfies CiInfo);
  });

  it('a zero SHA given as an override also means no base', async () => {
    const ci = await detectCi({ env: { SITEHEALTH_BASE: ZERO_SHA }, cwd: repo.dir });
    assert.equal(ci.base, first);
    assert.equal(ci.baseSource, 'parent');
    const none = await detectCi({ env: { SITEHEALTH_BASE: ZERO_SHA }, cwd: repo.dir, fallbackToParent: false });
    assert.equal(none.base, undefined);
    assert.equal(none.baseSource, 'none');
  });

  it('outside CI: the checkout\'s commit and branch, the parent as base', async () => {
    assert.deepEqual(await detectCi({ env: {}, cwd: repo.dir }), {
      isCi: false, isPr: false, commit: second, ref: 'main', base: first, baseSource: 'parent', warnings: [],
    } satisfies CiInfo);
  });
});
