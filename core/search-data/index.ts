// Search data: daily search-console clicks and impressions per page (and, in detail, per page,
// query, country and device), synced from Search Console (core/search-console) or imported from
// CSV (`npm run admin -- search import`), kept 16 months; read as search performance, as a
// deploy's impact, as findings' clicks and as the first source of a check's key pages.
export { importSearchData, replaceDay, PROGRESS_EVERY, type ImportInput, type ImportResult, type SyncedRow } from './import.ts';
export { SearchImportError, REQUIRED_COLUMNS, OPTIONAL_COLUMNS } from './rows.ts';
export { deployImpact, searchContext, windowDays, MAX_IMPACT_DAYS, type SearchContext } from './impact.ts';
export { searchSpan, clicksByUrl, topPagesByClicks, normalizedUrls, CLICKS_WINDOW_DAYS, type SearchSpan } from './read.ts';
export { searchDataRetention, SEARCH_DATA_MAX_AGE_MS } from './retention.ts';
export { deleteSearchData } from './remove.ts';
export { dayOf, addDays, isDay, daysBetween } from './days.ts';
export { copyIn, CopyIn } from './copy-in.ts';
export { searchPerformance, checkPeriod, MAX_PERIOD_DAYS, type PerformanceQuery, type SearchDimension } from './performance.ts';
export { rollUpAll } from './rollups.ts';
export { searchTotals, pagesLosingClicks, type DayTotals } from './periods.ts';
