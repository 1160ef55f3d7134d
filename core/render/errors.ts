/** Why one page's render failed: its message is the render's `reason` (spec/site-checks.tsp PageRender). */
export class RenderError extends Error {}
