// The dashboard's tests drive Debian's Chromium through playwright-core: a fresh profile per
// launch, the sandbox-safe headless flags, every /v1 answer the page receives checked against
// the generated document, no console error (a CSP violation is one), axe-core on each page,
// and a screenshot of each page under test-results/screenshots/ (README.md#the-dashboard).
import assert from 'node:assert/strict';
import fs from 'node:fs';
import net from 'node:net';
import path from 'node:path';
import { chromium, type Browser, type BrowserContext, type Page } from 'playwright-core';
import { AxeBuilder } from '@axe-core/playwright';
import { responseViolations } from './contract.ts';
import { root } from './processes.ts';

export const CHROMIUM = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';
export const SCREENSHOTS = path.join(root, 'test-results', 'screenshots');

export function launchBrowser(): Promise<Browser> {
  return chromium.launch({
    executablePath: CHROMIUM,
    headless: true,
    args: ['--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run', '--disable-background-networking', '--disable-component-update', '--disable-sync', '--disable-dev-shm-usage'],
  });
}

/** A port free right now, for a server whose public URL must be known before it starts. */
export async function freePort(): Promise<number> {
  const s = net.createServer();
  await new Promise<void>((resolve) => s.listen(0, '127.0.0.1', resolve));
  const port = (s.address() as net.AddressInfo).port;
  await new Promise<void>((resolve) => s.close(() => resolve()));
  return port;
}

export interface Watched {
  context: BrowserContext;
  page: Page;
  /** Contract violations of /v1 answers, and console errors, seen so far. */
  problems: string[];
  /** Fails the test when the page saw a violation or a console error; clears the list. */
  assertClean(): void;
}

/**
 * A new browser context (its own cookies) whose page is watched: each /v1 JSON answer is
 * validated like TestApi.call validates, and console errors are collected.
 */
export async function openContext(browser: Browser, baseURL: string, o: { width?: number; height?: number; allowConsoleErrors?: RegExp } = {}): Promise<Watched> {
  const context = await browser.newContext({ baseURL, viewport: { width: o.width ?? 1280, height: o.height ?? 900 }, locale: 'en-US' });
  const page = await context.newPage();
  const problems: string[] = [];
  page.on('response', async (res) => {
    const url = new URL(res.url());
    if (!url.pathname.startsWith('/v1/') || url.origin !== new URL(baseURL).origin) return;
    const type = res.headers()['content-type'] ?? '';
    let body: unknown;
    try {
      const text = await res.text();
      body = text === '' ? undefined : type.includes('json') ? JSON.parse(text) : text;
    } catch {
      return; // a redirect or a body the page never read
    }
    for (const v of responseViolations(res.request().method(), url.pathname, res.status(), type, body)) problems.push(`${res.request().method()} ${url.pathname}: ${v}`);
    if (res.status() >= 500) problems.push(`${res.request().method()} ${url.pathname} answered ${res.status()}`);
  });
  page.on('console', (m) => {
    // Chromium logs every 4xx answer as "Failed to load resource"; a 401 before signing in is the
    // API working. Answers are judged above; what is left here (CSP refusals, exceptions) is not.
    if (m.type() !== 'error' || m.text().startsWith('Failed to load resource')) return;
    if (!(o.allowConsoleErrors && o.allowConsoleErrors.test(m.text()))) problems.push(`console: ${m.text()}`);
  });
  page.on('pageerror', (e) => problems.push(`page error: ${e.message}`));
  return {
    context,
    page,
    problems,
    assertClean() {
      const seen = problems.splice(0);
      assert.deepEqual(seen, []);
    },
  };
}

/**
 * axe-core on the page as it is now: no serious or critical violation (WCAG 2.1 A and AA), and a
 * full-page screenshot named `<name>.png`.
 */
export async function auditPage(page: Page, name: string): Promise<void> {
  const result = await new AxeBuilder({ page }).withTags(['wcag2a', 'wcag2aa', 'wcag21a', 'wcag21aa']).analyze();
  const bad = result.violations.filter((v) => v.impact === 'serious' || v.impact === 'critical');
  assert.deepEqual(
    bad.map((v) => `${v.id} (${v.impact}): ${v.help} at ${v.nodes.map((n) => n.target.join(' ')).slice(0, 3).join(', ')}`),
    [],
    `axe on ${name}`,
  );
  fs.mkdirSync(SCREENSHOTS, { recursive: true });
  await page.screenshot({ path: path.join(SCREENSHOTS, `${name}.png`), fullPage: true });
}

/**
 * What sticks out past the right edge of the viewport (something would scroll sideways on a
 * phone): the outermost such elements, as tag.class, empty when nothing does. A string, not a
 * function: the test runner's transform would wrap named functions in a helper the page lacks.
 */
export function overflowsSideways(page: Page): Promise<string[]> {
  return page.evaluate(`(() => {
    const width = document.documentElement.clientWidth;
    const out = [];
    for (const el of document.body.querySelectorAll('*')) {
      if (el.getBoundingClientRect().right <= width + 1) continue;
      // Inside a region that scrolls by itself (a wide table): fine.
      let p = el.parentElement, contained = false;
      while (p && p !== document.body) { if (getComputedStyle(p).overflowX !== 'visible') { contained = true; break; } p = p.parentElement; }
      if (!contained && !out.some((o) => o.el.contains(el))) out.push({ el, name: el.tagName.toLowerCase() + (el.className ? '.' + String(el.className).split(' ').join('.') : '') });
    }
    return out.map((o) => o.name);
  })()`);
}
