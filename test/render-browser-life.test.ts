// A worker killed mid-render leaves no browser behind (core/render/browser.ts launchPath): the
// browser is started through setpriv's parent-death signal, so it ends with the process that
// started it, SIGKILL included; and the render process that starts it (core/render/isolated.ts)
// ends with the worker that started it.
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import { describe, it } from 'node:test';
import { browserAvailable } from '../core/render/index.ts';
import { root } from './support/processes.ts';

/** Running: a zombie (ended, not yet reaped by whoever adopted it) counts as ended. */
const alive = (pid: number) => {
  try {
    return !fs.readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]?.startsWith('Z');
  } catch {
    return false;
  }
};
const parentOf = (pid: number) => {
  try {
    const stat = fs.readFileSync(`/proc/${pid}/stat`, 'utf8');
    return Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]);
  } catch {
    return 0;
  }
};
const cmdline = (pid: number) => {
  try {
    return fs.readFileSync(`/proc/${pid}/cmdline`, 'utf8').replace(/\0/g, ' ');
  } catch {
    return '';
  }
};

/** Processes whose command line names `marker` (the browser's own user-data dir). */
function processesWith(marker: string): number[] {
  return fs
    .readdirSync('/proc')
    .filter((d) => /^\d+$/.test(d))
    .filter((d) => {
      try {
        return fs.readFileSync(`/proc/${d}/cmdline`, 'utf8').includes(marker);
      } catch {
        return false;
      }
    })
    .map(Number);
}

describe('the browser ends with its worker', { skip: !browserAvailable() && 'Chromium is not installed (.ci/run installs it)' }, () => {
  it('a process that started a browser, killed with SIGKILL, leaves none of the browser processes running', async () => {
    const dir = fs.mkdtempSync('/tmp/sitehealth-life-');
    const script = `import { launchBrowser } from ${JSON.stringify(`${root}/core/render/lighthouse.ts`)};
      const chrome = await launchBrowser(${JSON.stringify(dir)}, '127.0.0.1:9');
      console.log(JSON.stringify({ pid: chrome.pid }));
      setInterval(() => {}, 1000);`;
    const child = spawn(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', script], { cwd: root, stdio: ['ignore', 'pipe', 'inherit'] });
    const { pid } = await new Promise<{ pid: number }>((resolve, reject) => {
      let out = '';
      child.stdout.on('data', (d) => {
        out += d;
        const line = out.split('\n').find((l) => l.startsWith('{'));
        if (line) resolve(JSON.parse(line));
      });
      child.on('exit', (code) => reject(new Error(`the launcher exited with ${code} before the browser started`)));
    });
    assert.ok(alive(pid), 'the browser runs');
    assert.ok(processesWith(dir).length >= 2, 'the browser and its helper processes run');

    child.kill('SIGKILL');
    const deadline = Date.now() + 15_000;
    while (Date.now() < deadline && (alive(pid) || processesWith(dir).length > 0)) await new Promise((r) => setTimeout(r, 100));
    const left = processesWith(dir);
    for (const p of left) process.kill(p, 'SIGKILL');
    fs.rmSync(dir, { recursive: true, force: true });
    assert.equal(alive(pid), false, 'the browser process ended');
    assert.deepEqual(left, [], 'no process of that browser is left');
  });

  it('a worker killed with SIGKILL mid-render takes its render process and that process\'s browser with it', async () => {
    // The "worker": a render of a page that never finishes loading, through the real guard proxy.
    const script = `import fs from 'node:fs';
      import { RenderProcess } from ${JSON.stringify(`${root}/core/render/isolated.ts`)};
      import { startGuardProxy } from ${JSON.stringify(`${root}/core/render/guard-proxy.ts`)};
      import { startFixtureSite } from ${JSON.stringify(`${root}/test/support/fixture-site.ts`)};
      const site = await startFixtureSite();
      site.set('/', { neverFinish: true });
      const proxy = await startGuardProxy({ allowPrivateNetwork: true });
      new RenderProcess().render({ url: site.url('/'), runs: 1, timeoutMs: 120000, preset: 'mobile', proxy: proxy.address }).catch(() => undefined);
      setInterval(() => {}, 1000);`;
    const worker = spawn(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', script], { cwd: root, stdio: ['ignore', 'ignore', 'inherit'] });
    const exited = new Promise((resolve) => worker.on('exit', resolve));
    // Its render process, and the browser that process starts.
    const below = (pid: number) => processesWith('').filter((p) => parentOf(p) === pid);
    let child: number | undefined;
    let browser: number | undefined;
    const deadline = Date.now() + 90_000;
    while (Date.now() < deadline && browser === undefined) {
      child ??= below(worker.pid!).find((p) => cmdline(p).includes('core/render/child.ts'));
      if (child !== undefined) browser = below(child).find((p) => cmdline(p).includes('chromium'));
      await new Promise((r) => setTimeout(r, 200));
    }
    if (browser === undefined) worker.kill('SIGKILL');
    assert.ok(child !== undefined && browser !== undefined, 'the render process started a browser');
    const dir = /--user-data-dir=(\S+)/.exec(cmdline(browser))?.[1] ?? '';
    assert.ok(dir.includes('sitehealth-chromium-'), cmdline(browser));

    worker.kill('SIGKILL');
    await exited;
    const until = Date.now() + 15_000;
    while (Date.now() < until && (alive(child) || alive(browser) || processesWith(dir).length > 0)) await new Promise((r) => setTimeout(r, 100));
    const left = processesWith(dir);
    for (const p of [child, browser, ...left]) if (alive(p)) process.kill(p, 'SIGKILL');
    assert.equal(alive(child), false, 'the render process ended');
    assert.equal(alive(browser), false, 'the browser ended');
    assert.deepEqual(left, [], 'no process of that browser is left');
  });
});

