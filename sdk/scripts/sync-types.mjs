#!/usr/bin/env node
// Copies the API types generated from spec/ (../generated/types.ts, written by `npm run generate`
// at the repository root) into the SDK, so the published package never imports outside its own
// folder. Runs as the SDK's `prebuild`; the copy is committed, and test/sdk.test.ts fails when it
// drifts from the source.
//
//   node scripts/sync-types.mjs          copy (keeps the committed copy when the source is absent,
//                                        e.g. when building from a packed tarball)
//   node scripts/sync-types.mjs --check  exit 1 when the copy differs from the source
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const sdkDir = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const source = path.resolve(sdkDir, '..', 'generated', 'types.ts');
const target = path.join(sdkDir, 'src', 'generated', 'types.ts');
const check = process.argv.includes('--check');

if (!fs.existsSync(source)) {
  if (check || !fs.existsSync(target)) {
    console.error(`sync-types: ${source} not found`);
    process.exit(1);
  }
  console.warn(`sync-types: ${source} not found; keeping ${path.relative(sdkDir, target)}`);
  process.exit(0);
}

const wanted = fs.readFileSync(source, 'utf8');
const current = fs.existsSync(target) ? fs.readFileSync(target, 'utf8') : null;
if (current === wanted) {
  console.log(`sync-types: ${path.relative(sdkDir, target)} is up to date`);
} else if (check) {
  console.error(`sync-types: ${path.relative(sdkDir, target)} differs from generated/types.ts; run \`npm run sync-types\` in sdk/`);
  process.exit(1);
} else {
  fs.mkdirSync(path.dirname(target), { recursive: true });
  fs.writeFileSync(target, wanted);
  console.log(`sync-types: wrote ${path.relative(sdkDir, target)}`);
}
