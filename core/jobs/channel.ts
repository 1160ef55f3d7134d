/** The NOTIFY channel workers LISTEN on (PostgreSQL). */
export const JOBS_CHANNEL = 'sitehealth_jobs';
