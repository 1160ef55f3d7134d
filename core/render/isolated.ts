import { fork, type ChildProcess } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import type { RenderReply, RenderRequest } from './child.ts';
import type { RunResult } from './lighthouse.ts';
import { RenderError } from './errors.ts';

/**
 * Time a render process gets beyond its runs' own limits (RENDER_TIMEOUT_MS each): starting
 * node and loading Lighthouse on a loaded machine, starting the browser. Past it, the process is
 * killed; its own deadline (lighthouse.ts) normally ends a run long before.
 */
const STARTUP_ALLOWANCE_MS = 60_000;

/**
 * A process that renders pages one after another (child.ts), started when the first page needs
 * it and again if it ended. A browser crash, an error Lighthouse throws where nobody catches it,
 * or a process that hangs (killed here past its time) fails that page's render only.
 */
export class RenderProcess {
  private child: ChildProcess | null = null;

  async render(req: RenderRequest): Promise<RunResult[]> {
    const child = (this.child ??= start());
    return new Promise<RunResult[]>((resolve, reject) => {
      const done = (fn: () => void) => {
        clearTimeout(timer);
        child.off('message', onMessage);
        child.off('exit', onExit);
        fn();
      };
      const onMessage = (reply: RenderReply) => done(() => (reply.ok ? resolve(reply.runs) : reject(new RenderError(reply.reason))));
      const onExit = (code: number | null, signal: string | null) => {
        this.drop(child);
        done(() => reject(new RenderError(`the browser failed: the render process ended (${signal ?? `exit code ${code}`})`)));
      };
      const timer = setTimeout(() => {
        this.drop(child);
        done(() => reject(new RenderError(`the page did not finish rendering within ${req.runs * req.timeoutMs + STARTUP_ALLOWANCE_MS} ms`)));
      }, req.runs * req.timeoutMs + STARTUP_ALLOWANCE_MS);
      child.on('message', onMessage);
      child.on('exit', onExit);
      child.send(req);
    });
  }

  /** Ends the process (and so its browser). */
  close(): void {
    if (this.child) this.drop(this.child);
  }

  private drop(child: ChildProcess): void {
    if (this.child === child) this.child = null;
    if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
  }
}

function start(): ChildProcess {
  const child = fork(fileURLToPath(new URL('./child.ts', import.meta.url)), [], {
    // TypeScript, as the worker itself runs it; nothing else of the parent's flags (test runner, inspector).
    execArgv: ['--import', import.meta.resolve('tsx')],
    stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
  });
  // A request sent to a process that has just ended: its exit fails the render (render() above).
  child.on('error', () => undefined);
  return child;
}
