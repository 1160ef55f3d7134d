import { Model } from 'objection';
import type { Schemas } from '../../contract/index.ts';
import type { RunState, Stored } from './SiteCheck.ts';

export class SiteCrawl extends Model {
  static tableName = 'site_crawls';
  static jsonAttributes = ['pages', 'findings'];

  declare id: string;
  declare workspace_id: string;
  declare deploy_id: string | null;
  declare state: RunState;
  declare trigger_kind: Schemas['CheckTrigger'];
  declare scheduled_at: number;
  declare started_at: number | null;
  declare finished_at: number | null;
  declare pages_crawled: number;
  /** Internal: the crawl's page list. */
  declare pages: unknown[] | null;
  /** Every finding of this crawl (the next crawl compares with it) and those new since the previous one. */
  declare findings: { all?: Schemas['CrawlFinding'][]; crawlFindings?: Stored<Schemas['DeployCrawlFinding']>[] } | null;
  declare error: string | null;
  declare created_at: number;
}
