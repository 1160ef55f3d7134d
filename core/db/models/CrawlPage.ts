import { Model } from 'objection';

/** What a crawl saw on one page (migration 20261123000101). */
export class CrawlPage extends Model {
  static tableName = 'crawl_pages';
  static idColumn = ['crawl_id', 'url'];
  static jsonAttributes = ['redirects', 'robots'];

  declare crawl_id: string;
  declare url: string;
  declare depth: number;
  declare status: number | null;
  declare final_url: string | null;
  declare redirects: Array<{ url: string; status: number }>;
  declare title: string | null;
  declare robots: string[];
  declare blocked_by_robots: boolean;
  declare in_sitemap: boolean;
  declare inlinks: number;
  declare linked_from: string | null;
  declare error: string | null;
}
