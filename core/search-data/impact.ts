// A deploy's impact on search traffic (docs/api.md#impact; the rule is written out in the
// `Impact` model of spec/deploys.tsp): equal windows before and after the deploy's date, from
// the per-day totals (at most 15 rows), and the pages its findings name from the per-page rows.
// SQL text (runSql), not the models: one statement per deploy detail (bench:impact).

import { runSql, type DbOrTrx } from '../db/index.ts';
import type { Schemas } from '../contract/index.ts';
import { addDays, dayOf, dayRange, daysBetween } from './days.ts';
import { normalizedUrls, pagesOnDays, type SearchSpan } from './read.ts';

export const MAX_IMPACT_DAYS = 7;

interface DayRow {
  date: string;
  provisional: boolean | number;
  clicks: number | string;
  impressions: number | string;
}

/** What a deploy's impact needs to know of the per-day table: the span of days and the days around the deploy. */
export interface SearchContext {
  span: SearchSpan;
  /** The deploy's day. */
  day: string;
  /** Imported days from 7 before to 7 after it. */
  days: Map<string, DayRow>;
}

/**
 * The span of imported days and the days within 7 of `day`, in one statement (the span's three
 * lookups at the ends of the primary key, joined to the at most 15 days of the range).
 */
export async function searchContext(db: DbOrTrx, workspaceId: string, day: string): Promise<SearchContext> {
  const rows = await runSql<DayRow & { first: string | null; newest: string | null; last_final: string | null; date: string | null }>(
    db,
    `SELECT s.first, s.newest, s.last_final, d.date, d.provisional, d.clicks, d.impressions
       FROM (SELECT (SELECT MIN(date) FROM search_data_days WHERE workspace_id = ?) AS first,
                    (SELECT MAX(date) FROM search_data_days WHERE workspace_id = ?) AS newest,
                    (SELECT MAX(date) FROM search_data_days WHERE workspace_id = ? AND NOT provisional) AS last_final) s
       LEFT JOIN search_data_days d ON d.workspace_id = ? AND d.date >= ? AND d.date <= ?`,
    [workspaceId, workspaceId, workspaceId, workspaceId, addDays(day, -MAX_IMPACT_DAYS), addDays(day, MAX_IMPACT_DAYS)],
  );
  const first = rows[0];
  return {
    span: { first: first?.first ?? null, newest: first?.newest ?? null, lastFinal: first?.last_final ?? null },
    day,
    days: new Map(rows.filter((r) => r.date !== null).map((r) => [String(r.date), r])),
  };
}

/**
 * The length of the windows around day `deployDay`: the largest n from 1 to 7 such that
 * [D+1, D+n] ends on or before the last final day, [D-n, D-1] starts on or after the first day
 * with data, and neither holds a provisional day. 0 when there is none (impact is null).
 */
export function windowDays(deployDay: string, span: SearchSpan, provisional: (day: string) => boolean): number {
  if (!span.first || !span.lastFinal) return 0;
  const limit = Math.min(MAX_IMPACT_DAYS, daysBetween(deployDay, span.lastFinal), daysBetween(span.first, deployDay));
  let n = 0;
  for (let k = 1; k <= limit; k++) {
    if (provisional(addDays(deployDay, k)) || provisional(addDays(deployDay, -k))) break;
    n = k;
  }
  return n;
}

function ratio(after: number, before: number): number | null {
  return before === 0 ? null : (after - before) / before;
}

/**
 * Impact of a deploy made at `deployedAt` (epoch ms), with `urls` the pages its findings name
 * (in order; normalised here). Null until there is final data for a day after the deploy's date.
 * `context` (searchContext for the deploy's day) saves a statement when the caller has it.
 */
export async function deployImpact(
  db: DbOrTrx,
  o: { workspaceId: string; deployedAt: number; urls: string[]; context?: SearchContext },
): Promise<Schemas['Impact'] | null> {
  const deployDay = dayOf(o.deployedAt);
  const context = o.context?.day === deployDay ? o.context : await searchContext(db, o.workspaceId, deployDay);
  const byDay = context.days;
  const days = windowDays(deployDay, context.span, (d) => Boolean(byDay.get(d)?.provisional));
  if (days === 0) return null;

  const beforeDays = dayRange(addDays(deployDay, -days), addDays(deployDay, -1));
  const afterDays = dayRange(addDays(deployDay, 1), addDays(deployDay, days));
  const total = (list: string[]) => {
    let clicks = 0;
    let impressions = 0;
    for (const d of list) {
      const r = byDay.get(d);
      if (r) {
        clicks += Number(r.clicks);
        impressions += Number(r.impressions);
      }
    }
    return { clicks, impressions };
  };
  const before = total(beforeDays);
  const after = total(afterDays);

  let pages: Schemas['ImpactPages'] | null = null;
  const urls = normalizedUrls(o.urls);
  if (urls.length > 0) {
    const q = pagesOnDays(o.workspaceId, [...beforeDays, ...afterDays], urls);
    const [sums] = await runSql<{ bc: number | string | null; bi: number | string | null; ac: number | string | null; ai: number | string | null }>(
      db,
      `SELECT SUM(CASE WHEN date < ? THEN clicks ELSE 0 END) AS bc, SUM(CASE WHEN date < ? THEN impressions ELSE 0 END) AS bi,
              SUM(CASE WHEN date > ? THEN clicks ELSE 0 END) AS ac, SUM(CASE WHEN date > ? THEN impressions ELSE 0 END) AS ai
         FROM search_data WHERE ${q.where}`,
      [deployDay, deployDay, deployDay, deployDay, ...q.bindings],
    );
    const affected = {
      before: { clicks: Number(sums?.bc ?? 0), impressions: Number(sums?.bi ?? 0) },
      after: { clicks: Number(sums?.ac ?? 0), impressions: Number(sums?.ai ?? 0) },
    };
    pages = {
      affected: { urls, ...affected },
      rest: {
        before: { clicks: before.clicks - affected.before.clicks, impressions: before.impressions - affected.before.impressions },
        after: { clicks: after.clicks - affected.after.clicks, impressions: after.impressions - affected.after.impressions },
      },
    };
  }

  return {
    days,
    partial: days < MAX_IMPACT_DAYS,
    before: { from: beforeDays[0], to: beforeDays[beforeDays.length - 1], ...before },
    after: { from: afterDays[0], to: afterDays[afterDays.length - 1], ...after },
    change: { clicks: ratio(after.clicks, before.clicks), impressions: ratio(after.impressions, before.impressions) },
    pages,
  };
}
