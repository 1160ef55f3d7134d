import { Activity, Membership, User, Workspace, isPostgres, isUniqueViolation, withTransaction, type DbOrTrx } from '../db/index.ts';
import { Conflict, NotFound, ValidationFailed, WorkspaceLimitReached, isUuid, newId, nowMs, redactSecrets, toIso } from '../platform/index.ts';
import type { Schemas } from '../contract/index.ts';
import { memberJoined, workspaceLimitReached, type Actor } from '../activity/index.ts';
import type { Caller, WorkspaceRow } from '../access/index.ts';
import { deleteSearchData } from '../search-data/index.ts';
import { slugify } from './slug.ts';
import { workspaceFieldErrors } from './validate.ts';

export type WorkspaceInput = Schemas['WorkspaceCreate'];
export type WorkspacePatch = Schemas['WorkspaceUpdate'];

const DEFAULTS = { type: 'PERSONAL', timezone: 'UTC', language: 'en', check_schedule: 'daily', check_time: '06:00', crawl_schedule: 'weekly', render_preset: 'mobile' } as const;

const SCHEDULE_FIELDS = ['check_schedule', 'check_time', 'crawl_schedule', 'timezone'] as const;

export function workspaceToApi(row: WorkspaceRow): Schemas['Workspace'] {
  return {
    id: row.id,
    name: row.name,
    slug: row.slug,
    // The table only holds types the schema let in.
    type: row.type,
    logo: row.logo ?? null,
    website: row.website,
    timezone: row.timezone,
    country: row.country ?? null,
    description: row.description ?? null,
    language: row.language,
    check_schedule: row.check_schedule,
    check_time: row.check_time,
    crawl_schedule: row.crawl_schedule,
    render_preset: row.render_preset,
    created_at: toIso(row.created_at)!,
    updated_at: toIso(row.updated_at)!,
  };
}

function assertValid(input: WorkspaceInput | WorkspacePatch): void {
  const errors = workspaceFieldErrors(input);
  if (errors.length) throw new ValidationFailed(`Invalid workspace: ${errors.map((e) => `${e.path.slice(1)} ${e.message}`).join('; ')}.`, errors);
}

/** Workspaces the caller belongs to (only the bound one for a bound key), oldest first. */
export async function listWorkspaces(db: DbOrTrx, caller: Caller): Promise<Schemas['Workspace'][]> {
  const q = Workspace.query(db)
    .join('memberships as m', 'm.workspace_id', 'workspaces.id')
    .where('m.user_id', caller.userId)
    .orderBy([{ column: 'workspaces.created_at' }, { column: 'workspaces.id' }])
    .select('workspaces.*');
  if (caller.workspaceId) q.where('workspaces.id', caller.workspaceId);
  return (await q).map(workspaceToApi);
}

class LimitHit extends Error {
  constructor(
    readonly limit: number,
    readonly count: number,
  ) {
    super('workspace limit');
  }
}

function slugTaken(slug: string): Conflict {
  return new Conflict('slug_taken', `The slug "${slug}" derived from the name is already in use; choose another name.`);
}

/**
 * Creates a workspace in the account, with the user as its owner (member.joined), in one
 * transaction. Over the account's limit: WorkspaceLimitReached, and a billing
 * `workspace_limit.reached` row that survives the rollback. A taken slug: Conflict
 * `slug_taken` (checked first, and the unique index decides races).
 */
/** Free text is stored with anything shaped like a key or a webhook secret redacted. */
function withoutSecrets<T extends { name?: string; description?: string | null }>(input: T): T {
  const out = { ...input };
  if (typeof out.name === 'string') out.name = redactSecrets(out.name);
  if (typeof out.description === 'string') out.description = redactSecrets(out.description);
  return out;
}

export async function createWorkspace(
  db: DbOrTrx,
  args: { accountId: string; userId: string; input: WorkspaceInput; actor?: Actor },
): Promise<WorkspaceRow> {
  const input = withoutSecrets(args.input);
  assertValid(input);
  const slug = slugify(input.name);
  const now = nowMs();
  const row: WorkspaceRow = {
    id: newId(),
    account_id: args.accountId,
    name: input.name,
    slug,
    type: input.type ?? DEFAULTS.type,
    logo: input.logo ?? null,
    website: input.website,
    timezone: input.timezone ?? DEFAULTS.timezone,
    country: input.country ? input.country.toUpperCase() : null,
    description: input.description ?? null,
    language: input.language ?? DEFAULTS.language,
    check_schedule: input.check_schedule ?? DEFAULTS.check_schedule,
    check_time: input.check_time ?? DEFAULTS.check_time,
    crawl_schedule: input.crawl_schedule ?? DEFAULTS.crawl_schedule,
    render_preset: input.render_preset ?? DEFAULTS.render_preset,
    schedule_changed_at: null,
    created_at: now,
    updated_at: now,
  };
  const actor: Actor = args.actor ?? { type: 'user', id: args.userId, label: null };
  try {
    return await withTransaction(db, async (trx) => {
      // Locking the account row serialises creations per account on PostgreSQL, so two
      // concurrent requests cannot both take the last free place; SQLite has one writer.
      const aq = trx('accounts').where({ id: args.accountId }).first('workspace_limit');
      if (isPostgres(trx)) aq.forUpdate();
      const account = (await aq) as { workspace_limit: number } | undefined;
      if (!account) throw new NotFound(`Account ${args.accountId} does not exist.`);
      const count = await Workspace.query(trx).where({ account_id: args.accountId }).resultSize();
      if (count >= account.workspace_limit) throw new LimitHit(account.workspace_limit, count);
      if (await Workspace.query(trx).where({ slug }).select('id').first()) throw slugTaken(slug);
      await Workspace.query(trx).insert(row);
      await Membership.query(trx).insert({ workspace_id: row.id, user_id: args.userId, role: 'owner', created_at: now });
      const user = await User.query(trx).findById(args.userId).select('email');
      await memberJoined(trx, { workspaceId: row.id, accountId: row.account_id, userId: args.userId, email: user?.email ?? null, role: 'owner', actor, at: now });
      return row;
    });
  } catch (err) {
    if (err instanceof LimitHit) {
      await workspaceLimitReached(db, { accountId: args.accountId, limit: err.limit, count: err.count, userId: args.userId, actor });
      throw new WorkspaceLimitReached(err.limit);
    }
    if (isUniqueViolation(err, 'slug')) throw slugTaken(slug);
    throw err;
  }
}

/** Partial update; the slug never changes. Returns the updated row. */
export async function updateWorkspace(db: DbOrTrx, id: string, input: WorkspacePatch): Promise<WorkspaceRow> {
  const patch = withoutSecrets(input);
  assertValid(patch);
  const changes: Partial<WorkspaceRow> = {};
  for (const field of ['name', 'website', 'type', 'timezone', 'language', 'logo', 'description', 'check_schedule', 'check_time', 'crawl_schedule', 'render_preset'] as const) {
    if (patch[field] !== undefined) (changes as Record<string, unknown>)[field] = patch[field];
  }
  if (patch.country !== undefined) changes.country = patch.country === null ? null : patch.country.toUpperCase();
  return withTransaction(db, async (trx) => {
    const before = isUuid(id) ? await Workspace.query(trx).findById(id) : undefined;
    if (!before) throw new NotFound();
    // Never earlier than created_at, even if the clock stepped back.
    changes.updated_at = Math.max(nowMs(), Number(before.created_at));
    // A schedule (or the time zone it runs in) that changed starts from now: slots before the
    // change never run (core/monitoring).
    if (SCHEDULE_FIELDS.some((f) => changes[f] !== undefined && changes[f] !== before[f])) changes.schedule_changed_at = changes.updated_at;
    await Workspace.query(trx).findById(id).patch(changes);
    return { ...before.toJSON(), ...changes } as WorkspaceRow;
  });
}

/**
 * Deletes the workspace and its data: memberships, bound keys, deploys, checks, crawls, events,
 * webhooks and logs cascade with the foreign keys; search data (no foreign key on its rows, see
 * its migration) is deleted here. Its security activity rows stay (they keep account_id, so the
 * account's users can still read them); its other activity rows go.
 */
export async function deleteWorkspace(db: DbOrTrx, id: string): Promise<void> {
  if (!isUuid(id)) throw new NotFound();
  await withTransaction(db, async (trx) => {
    const n = await Workspace.query(trx).deleteById(id);
    if (n === 0) throw new NotFound();
    await Activity.query(trx).where({ workspace_id: id }).whereNot({ kind: 'security' }).delete();
    await deleteSearchData(trx, id);
  });
}
