// A worker killed mid-render leaves no browser behind (core/render/browser.ts launchPath): the
// browser is started through setpriv's parent-death signal, so it ends with the process that
// started it, SIGKILL included.
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import { describe, it } from 'node:test';
import { browserAvailable } from '../core/render/index.ts';
import { root } from './support/processes.ts';

const alive = (pid: number) => {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
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
});
