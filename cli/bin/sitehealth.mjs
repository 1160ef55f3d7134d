#!/usr/bin/env node
// sitehealth: the sitehealth command line. `sitehealth deploy --help` for the deploy command.
import { run } from '../dist/command/index.js';

process.exitCode = await run(process.argv.slice(2));
