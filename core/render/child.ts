import { renderRuns, type RenderRunsOptions } from './lighthouse.ts';

// The render process (isolated.ts starts it): Lighthouse and the browser it drives run here, not
// in the worker. When the browser dies or a render is cut off, Lighthouse's own event listeners
// still talk to the browser that is gone and reject where nobody awaits them; in the worker, that
// unhandled rejection would end the process and every check it runs. Here it ends one page.

export interface RenderRequest extends RenderRunsOptions {
  url: string;
}

export type RenderReply = { ok: true; runs: Awaited<ReturnType<typeof renderRuns>> } | { ok: false; reason: string };

// The worker went away (even killed with SIGKILL): so does this process, and with it the browser,
// whose life is tied to this one (browser.ts launchPath).
process.on('disconnect', () => process.exit(0));

// Lighthouse's listeners reject (Target closed) once the browser is gone, crashed or killed at
// the deadline. The render's own promise and deadline (lighthouse.ts) already say how it ended;
// ending the process here would replace that reason with a bare exit code.
process.on('unhandledRejection', () => undefined);

// Each page in a browser of its own (renderRuns), so a failed render leaves nothing the next one
// uses: the process goes on, and spares the next page the seconds that loading Lighthouse takes.
process.on('message', (req: RenderRequest) => {
  renderRuns(req.url, req).then(
    (runs) => process.send?.({ ok: true, runs } satisfies RenderReply),
    (err: unknown) => process.send?.({ ok: false, reason: err instanceof Error ? err.message : String(err) } satisfies RenderReply),
  );
});
