#!/usr/bin/env node
// sitehealth-deploy: the same as `sitehealth deploy` (kept for scripts written against it).
import { run } from '../dist/command/index.js';

process.exitCode = await run(['deploy', ...process.argv.slice(2)]);
