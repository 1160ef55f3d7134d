import type { Knex } from 'knex';

// What a crawl saw on each page, kept for the next crawl's comparison (pages removed, new broken
// links) and for choosing a check's key pages (the shallowest pages of the last crawl). A crawl
// that runs again after a crash replaces its rows.
export async function up(db: Knex): Promise<void> {
  await db.schema.createTable('crawl_pages', (t) => {
    t.uuid('crawl_id').notNullable().references('site_crawls.id').onDelete('CASCADE');
    t.text('url').notNullable();
    t.integer('depth').notNullable();
    // null on a network error
    t.integer('status');
    t.text('final_url');
    // JSON text: [{url, status}] of the redirects followed
    t.text('redirects').notNullable();
    t.text('title');
    // JSON text: lower-case robots directives
    t.text('robots').notNullable();
    t.boolean('blocked_by_robots').notNullable();
    t.boolean('in_sitemap').notNullable();
    // How many crawled pages link here, and one of them
    t.integer('inlinks').notNullable();
    t.text('linked_from');
    t.text('error');
    t.primary(['crawl_id', 'url']);
  });
  await db.raw('CREATE INDEX crawl_pages_depth_idx ON crawl_pages (crawl_id, depth)');
}

export async function down(db: Knex): Promise<void> {
  await db.schema.dropTable('crawl_pages');
}
