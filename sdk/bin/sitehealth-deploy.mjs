#!/usr/bin/env node
// sitehealth-deploy: record a deploy from a CI job. See `sitehealth-deploy --help`.
import fs from 'node:fs';
import { parseArgs } from 'node:util';
import { SiteHealth, SiteHealthError, recordDeploy, DEFAULT_BASE_URL } from '../dist/index.js';

const HELP = `Usage: sitehealth-deploy [options]

Records a deploy (POST /v1/deploys). Safe to run twice: the same environment and
commit update the same deploy.

Options:
  --sha <sha>                  commit, 7-64 hex (default: $GITHUB_SHA, $CI_COMMIT_SHA)
  --ref <ref>                  branch or tag (default: $GITHUB_REF_NAME, $CI_COMMIT_REF_NAME)
  --environment, -e <name>     default: production (only production triggers site checks)
  --message, -m <text>         commit or release message (shortened to 2000 characters)
  --deployed-at <iso>          when it went live, ISO 8601 with an offset (default: now)
  --workspace <id>             workspace id (default: $SITEHEALTH_WORKSPACE_ID; not needed
                               with a key bound to a workspace)
  --changed-files-from <file>  changed paths, one per line ("-" reads stdin), e.g. the output
                               of \`git diff --name-only HEAD~1\`; categorized by the SDK
  --url <url>                  API base URL (default: $SITEHEALTH_URL or ${DEFAULT_BASE_URL})
  --json                       print the recorded deploy as JSON
  -h, --help                   this text

The API key is read from $SITEHEALTH_API_KEY only (never a flag, so it stays out of
process lists and CI logs). Exit 0 when recorded, 1 on a usage or API error.`;

function fail(message) {
  process.stderr.write(`sitehealth-deploy: ${message}\n`);
  process.exit(1);
}

let values;
try {
  ({ values } = parseArgs({
    options: {
      sha: { type: 'string' },
      ref: { type: 'string' },
      environment: { type: 'string', short: 'e' },
      message: { type: 'string', short: 'm' },
      'deployed-at': { type: 'string' },
      workspace: { type: 'string' },
      'changed-files-from': { type: 'string' },
      url: { type: 'string' },
      json: { type: 'boolean', default: false },
      help: { type: 'boolean', short: 'h', default: false },
    },
    strict: true,
    allowPositionals: false,
  }));
} catch (err) {
  fail(`${err.message}\n\n${HELP}`);
}
if (values.help) {
  process.stdout.write(`${HELP}\n`);
  process.exit(0);
}

const env = process.env;
const apiKey = env.SITEHEALTH_API_KEY;
const commitSha = values.sha || env.GITHUB_SHA || env.CI_COMMIT_SHA;
if (!apiKey) fail('SITEHEALTH_API_KEY is not set');
if (!commitSha) fail('no commit: pass --sha (or set GITHUB_SHA / CI_COMMIT_SHA)');

let changedPaths;
const from = values['changed-files-from'];
if (from !== undefined) {
  try {
    changedPaths = fs.readFileSync(from === '-' ? 0 : from, 'utf8').split(/\r?\n/);
  } catch (err) {
    fail(`cannot read ${from}: ${err.message}`);
  }
}

const client = new SiteHealth({ apiKey, baseUrl: values.url || env.SITEHEALTH_URL || DEFAULT_BASE_URL, userAgent: 'sitehealth-deploy' });
try {
  const deploy = await recordDeploy(client, {
    commitSha,
    workspaceId: values.workspace || env.SITEHEALTH_WORKSPACE_ID || undefined,
    environment: values.environment,
    ref: values.ref || env.GITHUB_REF_NAME || env.CI_COMMIT_REF_NAME || undefined,
    message: values.message,
    deployedAt: values['deployed-at'],
    changedPaths,
  });
  if (values.json) process.stdout.write(`${JSON.stringify(deploy)}\n`);
  else process.stdout.write(`Recorded deploy ${deploy.id} (${deploy.environment} ${deploy.commitSha}, ${deploy.changes.length} changes)\n`);
} catch (err) {
  if (err instanceof SiteHealthError) fail(err.message);
  throw err;
}
