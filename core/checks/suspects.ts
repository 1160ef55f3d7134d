import { Deploy, type DbOrTrx, type StoredChange } from '../db/index.ts';
import { toIso } from '../platform/index.ts';

/** Deploys a manual or scheduled run ranks causes among, newest first (spec/deploys.tsp CauseExplanation). */
export const SUSPECT_DEPLOYS = 20;

export interface Suspects {
  /** The changes causes are ranked among. */
  changes: StoredChange[];
  /** Null for a run that followed a deploy; otherwise which deploys the causes come from, or that none does. */
  explanation: string | null;
  /** Production deploys between the baseline and the run (1 for a run of a deploy). */
  deploys: number;
}

/**
 * Where the likely causes of a check's or crawl's findings come from. A run of a deploy: that
 * deploy's changes. A manual or scheduled run: the changes of the production deploys recorded
 * between its baseline (`since`, when the baseline looked at the site) and itself (`until`); with
 * none, no change explains the regression, and the explanation says so.
 */
export async function suspectChanges(
  db: DbOrTrx,
  run: { workspace_id: string; deploy_id: string | null },
  since: number,
  until: number,
  what: 'check' | 'crawl',
): Promise<Suspects> {
  if (run.deploy_id) {
    return { changes: (await Deploy.query(db).findById(run.deploy_id).select('changes'))?.changes ?? [], explanation: null, deploys: 1 };
  }
  const deploys = await Deploy.query(db)
    .where({ workspace_id: run.workspace_id, environment: 'production' })
    .where('deployed_at', '>', since)
    .where('deployed_at', '<=', until)
    .orderBy([
      { column: 'deployed_at', order: 'desc' },
      { column: 'id', order: 'desc' },
    ])
    .limit(SUSPECT_DEPLOYS)
    .select('commit_sha', 'deployed_at', 'changes');
  const window = `between the baseline ${what} (${toIso(since)}) and this ${what} (${toIso(until)})`;
  if (deploys.length === 0) {
    return {
      changes: [],
      deploys: 0,
      explanation: `No deploy was recorded ${window}, so no change of yours explains this: look outside the deploys (a CMS edit, a CDN or server rule, the certificate, another team's robots.txt or sitemap).`,
    };
  }
  const shas = deploys.map((d) => d.commit_sha.slice(0, 7)).join(', ');
  const n = deploys.length === 1 ? '1 production deploy was' : `${deploys.length} production deploys were`;
  return {
    changes: deploys.flatMap((d) => d.changes ?? []),
    deploys: deploys.length,
    explanation: `${n} recorded ${window} (${shas}): the causes are ranked among ${deploys.length === 1 ? 'its' : 'their'} changes.`,
  };
}
