import fs from 'node:fs';
import { fileURLToPath } from 'node:url';

// The browser a check renders with, kept apart from the Lighthouse driver (lighthouse.ts) so that
// a process that only asks whether a browser is there never loads Lighthouse: it is large, and
// every worker and server would pay for it at start.

/** Where Debian's `chromium` package puts the browser (.ci/run installs it). */
export const BROWSER_PATH = '/usr/bin/chromium';

/**
 * What the worker starts: the browser through a wrapper that ties its life to the worker's
 * (chromium-tied.sh, util-linux's setpriv), so a worker killed mid-render leaves no browser
 * running; the browser itself where setpriv is missing.
 */
export function launchPath(): string {
  const tied = fileURLToPath(new URL('./chromium-tied.sh', import.meta.url));
  try {
    fs.accessSync('/usr/bin/setpriv', fs.constants.X_OK);
    fs.accessSync(tied, fs.constants.X_OK);
    return tied;
  } catch {
    return BROWSER_PATH;
  }
}

/** Chromium flags: headless, no sandbox (containers run as root), nothing that phones home. */
export const CHROME_FLAGS = [
  '--headless',
  '--no-sandbox',
  '--disable-gpu',
  '--disable-quic',
  '--no-first-run',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
];

export function browserAvailable(): boolean {
  try {
    fs.accessSync(BROWSER_PATH, fs.constants.X_OK);
    return true;
  } catch {
    return false;
  }
}
