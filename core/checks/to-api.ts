import type { SiteCheck } from '../db/index.ts';
import type { Schemas } from '../contract/index.ts';
import { toIso } from '../platform/index.ts';

type PageRecord = Schemas['PageRecord'];

/**
 * A stored page record as the API (and a comparison with a newer check) reads it: renders stored
 * before rendered hreflang, structured data and the preset were kept have none of them. Those
 * read as empty, and as the preset every render used then, Lighthouse's default (mobile).
 */
export function pageFromRow(p: PageRecord): PageRecord {
  const r = p.render as (Omit<NonNullable<PageRecord['render']>, 'hreflang' | 'structuredDataTypes' | 'preset'> & Partial<NonNullable<PageRecord['render']>>) | undefined;
  if (!r || (r.hreflang && r.structuredDataTypes && r.preset !== undefined)) return p;
  return { ...p, render: { ...r, hreflang: r.hreflang ?? [], structuredDataTypes: r.structuredDataTypes ?? [], preset: r.preset !== undefined ? r.preset : r.state === 'rendered' ? 'mobile' : null } };
}

export function siteCheckToApi(row: SiteCheck): Schemas['SiteCheck'] {
  const pages = (row.pages ?? []).map(pageFromRow);
  return {
    id: row.id,
    workspaceId: row.workspace_id,
    deployId: row.deploy_id,
    state: row.state,
    trigger: row.trigger_kind,
    scheduledAt: toIso(row.scheduled_at)!,
    startedAt: toIso(row.started_at),
    finishedAt: toIso(row.finished_at),
    pages,
    ...rendering(pages, row.state),
    error: row.error,
  };
}

/**
 * Derived from the pages' render records: a check rendered in a browser when any page was
 * rendered or tried (a failed render is the browser's failure, not HTML-only); otherwise it is
 * HTML-only and says why (the reason its pages were skipped).
 */
function rendering(pages: Schemas['PageRecord'][], state: SiteCheck['state']): Pick<Schemas['SiteCheck'], 'rendering' | 'renderingNote'> {
  if (pages.some((p) => p.render && p.render.state !== 'skipped' )) return { rendering: 'browser', renderingNote: null };
  const skipped = pages.find((p) => p.render?.state === 'skipped')?.render?.reason;
  const note = skipped ?? (state === 'queued' || state === 'running' ? 'the check has not run yet' : 'the check did not render its pages');
  return { rendering: 'html_only', renderingNote: note };
}
