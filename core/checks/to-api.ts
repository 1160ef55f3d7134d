import type { SiteCheck } from '../db/index.ts';
import type { Schemas } from '../contract/index.ts';
import { toIso } from '../platform/index.ts';

export function siteCheckToApi(row: SiteCheck): Schemas['SiteCheck'] {
  return {
    id: row.id,
    workspaceId: row.workspace_id,
    deployId: row.deploy_id,
    state: row.state,
    trigger: row.trigger_kind,
    scheduledAt: toIso(row.scheduled_at)!,
    startedAt: toIso(row.started_at),
    finishedAt: toIso(row.finished_at),
    pages: row.pages ?? [],
    error: row.error,
  };
}
