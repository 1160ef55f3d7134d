import { keyActor } from '../../core/activity/index.ts';
import { buildReport, escapeHtml, notificationSettings, previewUnsubscribe, reportHtml, setDigest, unsubscribe as useToken } from '../../core/digests/index.ts';
import { instantOf } from '../../core/monitoring/index.ts';
import { ValidationFailed } from '../../core/platform/index.ts';
import type { Schemas } from '../../core/contract/index.ts';
import type { Handler } from '../handler-types.ts';

const DAY = 86_400_000;
const MAX_REPORT_DAYS = 366;
const FIRST_DAY = '1900-01-01';
const LAST_DAY = '9999-12-30';

/** HTML pages carry no script and load nothing: the only thing they do is the unsubscribe form. */
const PAGE_HEADERS = { 'content-security-policy': "default-src 'none'; style-src 'unsafe-inline'; form-action 'self'; frame-ancestors 'none'" };

export const getNotifications: Handler<'Notifications_get'> = async ({ db, access, auth, path }) => {
  const { workspace } = await access.workspace(path.id);
  return { status: 200, body: await notificationSettings(db, workspace.id, auth.userId) };
};

export const updateNotifications: Handler<'Notifications_update'> = async ({ db, access, auth, path, body }) => {
  const { workspace } = await access.workspace(path.id);
  await setDigest(db, { workspaceId: workspace.id, userId: auth.userId, digest: body.digest, actor: keyActor(auth) });
  return { status: 200, body: await notificationSettings(db, workspace.id, auth.userId) };
};

export const report: Handler<'Reports_get'> = async ({ db, access, query, path, config, accepts }) => {
  const { workspace } = await access.workspace(path.id);
  for (const name of ['from', 'to'] as const) {
    // Instants of the period must be ISO 8601 timestamps in any zone: four-digit years only.
    if (query[name] < FIRST_DAY || query[name] > LAST_DAY) throw new ValidationFailed(`\`${name}\` must be between ${FIRST_DAY} and ${LAST_DAY}.`, [{ in: 'query', path: `/${name}`, message: `must be between ${FIRST_DAY} and ${LAST_DAY}` }]);
  }
  const first = Date.parse(`${query.from}T00:00:00Z`);
  const last = Date.parse(`${query.to}T00:00:00Z`);
  if (last < first) throw new ValidationFailed('`to` is before `from`.', [{ in: 'query', path: '/to', message: 'must not be before from' }]);
  if ((last - first) / DAY + 1 > MAX_REPORT_DAYS) throw new ValidationFailed(`A report covers at most ${MAX_REPORT_DAYS} days.`, [{ in: 'query', path: '/to', message: `must be at most ${MAX_REPORT_DAYS} days after from` }]);
  // Whole local days: from the start of `from` to the start of the day after `to`, in the workspace's zone.
  const r = await buildReport(db, workspace, instantOf(first, workspace.timezone), instantOf(last + DAY, workspace.timezone), config.publicUrl);
  if (accepts('application/json', 'text/html') === 'text/html') return { status: 200, html: reportHtml(r), headers: PAGE_HEADERS };
  return { status: 200, body: r };
};

function page(title: string, body: string): string {
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="robots" content="noindex"><title>${escapeHtml(title)}</title>
<style>body{font-family:system-ui,sans-serif;max-width:36rem;margin:3rem auto;padding:0 1rem}button{font-size:1rem;padding:.5rem 1rem}</style>
</head><body><h1>${escapeHtml(title)}</h1>${body}</body></html>
`;
}

export const unsubscribePage: Handler<'Unsubscribe_page'> = async ({ db, query }) => {
  const u = await previewUnsubscribe(db, query.token);
  const action = `?token=${encodeURIComponent(query.token)}`;
  return {
    status: 200,
    headers: PAGE_HEADERS,
    html: page(
      'Unsubscribe from digests',
      `<p>Stop the email digests of <strong>${escapeHtml(u.workspaceName)}</strong> to ${escapeHtml(u.email)}?</p>
<form method="post" action="${escapeHtml(action)}"><input type="hidden" name="List-Unsubscribe" value="One-Click"><button type="submit">Unsubscribe</button></form>`,
    ),
  };
};

function unsubscribedPage(u: Schemas['Unsubscribed']): string {
  return page('Unsubscribed', `<p>${escapeHtml(u.email)} gets no more digests of <strong>${escapeHtml(u.workspaceName)}</strong>.</p>`);
}

export const unsubscribe: Handler<'Unsubscribe_unsubscribe'> = async ({ db, query, accepts }) => {
  const u = await useToken(db, query.token);
  if (accepts('application/json', 'text/html') === 'text/html') return { status: 200, html: unsubscribedPage(u), headers: PAGE_HEADERS };
  return { status: 200, body: u };
};
