// Rendered checks: pages loaded by Lighthouse in headless Chromium behind the address guard.
export { renderPages, type RenderSettings, type RenderOutcome } from './render.ts';
export { startGuardProxy, type GuardProxy } from './guard-proxy.ts';
export { BROWSER_PATH, CHROME_FLAGS, browserAvailable } from './browser.ts';
