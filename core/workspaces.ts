import type { components } from '../generated/types.ts';
import type { DbOrTrx } from './db/connection.ts';
import { isPostgres } from './db/connection.ts';
import { isUuid, newId } from './ids.ts';
import { nowMs, toIso } from './clock.ts';
import { Conflict, Forbidden, NotFound, ValidationFailed, WorkspaceLimitReached, type FieldError } from './errors.ts';
import { memberJoined, workspaceLimitReached, type Actor } from './activity.ts';
import { isUniqueViolation } from './accounts.ts';
import { isRole, roleAtLeast, type Caller, type Role } from './memberships.ts';

export const WORKSPACE_TYPES = [
  'PERSONAL',
  'TEAM',
  'ORGANIZATION',
  'CLIENT',
  'PROJECT',
  'DEPARTMENT',
  'EVENT',
  'TEMPORARY',
  'COMMUNITY',
  'BRAND',
  'AGENCY',
] as const;
export type WorkspaceType = (typeof WORKSPACE_TYPES)[number];

export const WORKSPACE_DEFAULTS = { type: 'PERSONAL', timezone: 'UTC', language: 'en' } as const;

export const SLUG_MAX_LENGTH = 64;

export interface WorkspaceRow {
  id: string;
  account_id: string;
  name: string;
  slug: string;
  type: string;
  logo: string | null;
  website: string;
  timezone: string;
  country: string | null;
  description: string | null;
  language: string;
  created_at: number;
  updated_at: number;
}

export interface WorkspaceInput {
  name: string;
  website: string;
  type?: WorkspaceType;
  timezone?: string;
  language?: string;
  logo?: string | null;
  country?: string | null;
  description?: string | null;
}

/** Omitted fields keep their value; null clears logo, country and description. */
export type WorkspacePatch = Partial<Omit<WorkspaceInput, 'logo' | 'country' | 'description'>> & {
  logo?: string | null;
  country?: string | null;
  description?: string | null;
};

/** The response shape of interface.md 2.4, as the document defines it. */
export type WorkspaceApi = components['schemas']['Workspace'];

export function workspaceToApi(row: WorkspaceRow): WorkspaceApi {
  return {
    id: row.id,
    name: row.name,
    slug: row.slug,
    // The table only holds types the schema let in.
    type: row.type as WorkspaceApi['type'],
    logo: row.logo ?? null,
    website: row.website,
    timezone: row.timezone,
    country: row.country ?? null,
    description: row.description ?? null,
    language: row.language,
    created_at: toIso(row.created_at)!,
    updated_at: toIso(row.updated_at)!,
  };
}

// ------------------------------------------------------------------ slug

// Letters NFKD does not decompose into an ASCII base letter.
const FOLD: Record<string, string> = {
  ß: 'ss', æ: 'ae', œ: 'oe', ø: 'o', ł: 'l', đ: 'd', ð: 'd', þ: 'th', ı: 'i', ħ: 'h', ŧ: 't', ŋ: 'n', ĸ: 'k',
};

/**
 * The slug of a workspace name: lower case, ASCII-folded (NFKD without combining marks,
 * plus a few letters NFKD leaves alone), runs of anything else as one '-', no '-' at
 * either end, at most 64 characters; `workspace` when nothing usable is left.
 */
export function slugify(name: string): string {
  const folded = name
    .toLowerCase()
    .normalize('NFKD')
    .replace(/\p{M}/gu, '')
    .replace(/[ßæœøłđðþıħŧŋĸ]/g, (c) => FOLD[c]);
  const slug = folded
    .replace(/[^a-z0-9]+/g, '-')
    .replace(/^-+|-+$/g, '')
    .slice(0, SLUG_MAX_LENGTH)
    .replace(/-+$/, '');
  return slug || 'workspace';
}

// ------------------------------------------------------------------ validators
// JSON schema covers shapes and lengths; these are the checks it cannot express.

let zones: Set<string> | undefined;

/** An IANA zone name (Intl's list plus `UTC`, or any zone name Intl.DateTimeFormat accepts). */
export function isIanaTimezone(value: unknown): value is string {
  if (typeof value !== 'string' || value.length === 0 || value.length > 64) return false;
  zones ??= new Set([...Intl.supportedValuesOf('timeZone'), 'UTC']);
  if (zones.has(value)) return true;
  // Newer engines also accept offsets such as "+01:00", which are not IANA zones.
  if (!/^[A-Za-z][A-Za-z0-9_+\-/]*$/.test(value)) return false;
  try {
    new Intl.DateTimeFormat('en', { timeZone: value });
    return true;
  } catch {
    return false;
  }
}

/** A well-formed BCP 47 language tag (`en`, `pt-BR`, `zh-Hant-TW`). */
export function isBcp47(value: unknown): value is string {
  if (typeof value !== 'string' || value.length === 0 || value.length > 35) return false;
  try {
    return Intl.getCanonicalLocales(value).length === 1;
  } catch {
    return false;
  }
}

// ISO 3166-1 alpha-2, officially assigned codes only. A static list because
// Intl.DisplayNames also names non-ISO regions (EU, UN, XK, ZZ, ...).
const ISO_COUNTRIES = new Set(
  (
    'AD AE AF AG AI AL AM AO AQ AR AS AT AU AW AX AZ BA BB BD BE BF BG BH BI BJ BL BM BN BO BQ BR BS BT BV BW BY BZ ' +
    'CA CC CD CF CG CH CI CK CL CM CN CO CR CU CV CW CX CY CZ DE DJ DK DM DO DZ EC EE EG EH ER ES ET FI FJ FK FM FO FR ' +
    'GA GB GD GE GF GG GH GI GL GM GN GP GQ GR GS GT GU GW GY HK HM HN HR HT HU ID IE IL IM IN IO IQ IR IS IT JE JM JO JP ' +
    'KE KG KH KI KM KN KP KR KW KY KZ LA LB LC LI LK LR LS LT LU LV LY MA MC MD ME MF MG MH MK ML MM MN MO MP MQ MR MS ' +
    'MT MU MV MW MX MY MZ NA NC NE NF NG NI NL NO NP NR NU NZ OM PA PE PF PG PH PK PL PM PN PR PS PT PW PY QA RE RO RS ' +
    'RU RW SA SB SC SD SE SG SH SI SJ SK SL SM SN SO SR SS ST SV SX SY SZ TC TD TF TG TH TJ TK TL TM TN TO TR TT TV TW ' +
    'TZ UA UG UM US UY UZ VA VC VE VG VI VN VU WF WS YE YT ZA ZM ZW'
  ).split(' '),
);

/** An ISO 3166-1 alpha-2 code; case-insensitive, as the API accepts `de` and stores `DE`. */
export function isIsoCountry(value: unknown): value is string {
  return typeof value === 'string' && value.length === 2 && ISO_COUNTRIES.has(value.toUpperCase());
}

function isWebsite(value: string): boolean {
  if (value.length > 500 || !/^https?:\/\//i.test(value)) return false;
  try {
    return new URL(value).hostname.length > 0;
  } catch {
    return false;
  }
}

type Check = [field: string, ok: (v: unknown) => boolean, message: string, nullable: boolean];

const CHECKS: Check[] = [
  ['name', (v) => typeof v === 'string' && v.length >= 1 && v.length <= 255, 'must be 1 to 255 characters', false],
  ['website', (v) => typeof v === 'string' && isWebsite(v), 'must be an http or https URL of up to 500 characters', false],
  ['type', (v) => (WORKSPACE_TYPES as readonly unknown[]).includes(v), `must be one of ${WORKSPACE_TYPES.join(', ')}`, false],
  ['timezone', isIanaTimezone, 'must be an IANA time zone such as Europe/Berlin', false],
  ['language', isBcp47, 'must be a BCP 47 language tag such as en or pt-BR', false],
  ['logo', (v) => typeof v === 'string' && v.length <= 2048, 'must be a string of up to 2,048 characters or null', true],
  ['country', isIsoCountry, 'must be an ISO 3166-1 alpha-2 country code such as DE', true],
  ['description', (v) => typeof v === 'string' && v.length <= 2000, 'must be a string of up to 2,000 characters or null', true],
];

/**
 * Field errors of a create input or update patch, with body pointers, for the HTTP layer
 * to report as 400 validation_failed. Unknown properties are the JSON schema's business.
 */
export function workspaceFieldErrors(input: Record<string, unknown>, opts: { partial: boolean }): FieldError[] {
  const errors: FieldError[] = [];
  for (const [field, ok, message, nullable] of CHECKS) {
    const v = input[field];
    if (v === undefined) {
      if (!opts.partial && (field === 'name' || field === 'website')) errors.push({ in: 'body', path: `/${field}`, message: 'is required' });
      continue;
    }
    if (v === null ? !nullable : !ok(v)) errors.push({ in: 'body', path: `/${field}`, message: v === null ? 'must not be null' : message });
  }
  return errors;
}

function assertValid(input: Record<string, unknown>, partial: boolean): void {
  const errors = workspaceFieldErrors(input, { partial });
  if (errors.length) throw new ValidationFailed(`Invalid workspace: ${errors.map((e) => `${e.path.slice(1)} ${e.message}`).join('; ')}.`, errors);
}

// ------------------------------------------------------------------ reads

export async function getWorkspace(db: DbOrTrx, id: string): Promise<WorkspaceRow | null> {
  if (!isUuid(id)) return null;
  // Plain Knex (a plain row) rather than the Objection model: GET /v1/workspaces/{id} is hot.
  return ((await db('workspaces').where({ id }).first()) as WorkspaceRow | undefined) ?? null;
}

/**
 * The workspace and the caller's role in it, in one query, or null when the caller cannot see
 * it (no such workspace, not a member, or another workspace than the key's binding).
 */
export async function visibleWorkspace(db: DbOrTrx, caller: Caller, workspaceId: string): Promise<{ workspace: WorkspaceRow; role: Role } | null> {
  if (!isUuid(workspaceId) || (caller.workspaceId !== null && caller.workspaceId !== workspaceId)) return null;
  // Plain Knex rather than the Objection models: every workspace-scoped request runs this.
  const row = (await db('workspaces as w')
    .join('memberships as m', 'm.workspace_id', 'w.id')
    .where({ 'w.id': workspaceId, 'm.user_id': caller.userId })
    .first('w.*', 'm.role as member_role')) as (WorkspaceRow & { member_role: string }) | undefined;
  if (!row || !isRole(row.member_role)) return null;
  const { member_role: role, ...workspace } = row;
  return { workspace, role };
}

/**
 * The workspace if the caller can see it with at least role `min`. Not visible: NotFound, so
 * existence never leaks. Visible but the role is too low: Forbidden.
 */
export async function requireWorkspaceAccess(
  db: DbOrTrx,
  caller: Caller,
  workspaceId: string,
  min: Role = 'viewer',
): Promise<{ workspace: WorkspaceRow; role: Role }> {
  const found = await visibleWorkspace(db, caller, workspaceId);
  if (!found) throw new NotFound();
  if (!roleAtLeast(found.role, min)) throw new Forbidden(`This needs the ${min} role or higher in the workspace; the key's user is ${found.role}.`);
  return found;
}

/** Workspaces the caller belongs to (only the bound one for a bound key), oldest first. */
export async function listWorkspaces(db: DbOrTrx, caller: Caller): Promise<WorkspaceRow[]> {
  const q = db('workspaces as w')
    .join('memberships as m', 'm.workspace_id', 'w.id')
    .where('m.user_id', caller.userId)
    .orderBy([{ column: 'w.created_at' }, { column: 'w.id' }])
    .select('w.*');
  if (caller.workspaceId) q.andWhere('w.id', caller.workspaceId);
  return (await q) as WorkspaceRow[];
}

// ------------------------------------------------------------------ writes

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
export async function createWorkspace(
  db: DbOrTrx,
  args: { accountId: string; userId: string; input: WorkspaceInput; actor?: Actor },
): Promise<WorkspaceRow> {
  const input = args.input as unknown as Record<string, unknown>;
  assertValid(input, false);
  const slug = slugify(args.input.name);
  const now = nowMs();
  const row: WorkspaceRow = {
    id: newId(),
    account_id: args.accountId,
    name: args.input.name,
    slug,
    type: args.input.type ?? WORKSPACE_DEFAULTS.type,
    logo: args.input.logo ?? null,
    website: args.input.website,
    timezone: args.input.timezone ?? WORKSPACE_DEFAULTS.timezone,
    country: args.input.country ? args.input.country.toUpperCase() : null,
    description: args.input.description ?? null,
    language: args.input.language ?? WORKSPACE_DEFAULTS.language,
    created_at: now,
    updated_at: now,
  };
  const actor: Actor = args.actor ?? { type: 'user', id: args.userId, label: null };
  try {
    return await db.transaction(async (trx) => {
      // Locking the account row serialises creations per account on PostgreSQL, so two
      // concurrent requests cannot both take the last free place; SQLite has one writer.
      const aq = trx('accounts').where({ id: args.accountId }).first('workspace_limit');
      if (isPostgres(trx)) aq.forUpdate();
      const account = (await aq) as { workspace_limit: number } | undefined;
      if (!account) throw new NotFound(`Account ${args.accountId} does not exist.`);
      const counted = (await trx('workspaces').where({ account_id: args.accountId }).count({ n: '*' }).first()) as { n: number | string };
      const count = Number(counted.n);
      if (count >= account.workspace_limit) throw new LimitHit(account.workspace_limit, count);
      if (await trx('workspaces').where({ slug }).first('id')) throw slugTaken(slug);
      await trx('workspaces').insert(row);
      await trx('memberships').insert({ workspace_id: row.id, user_id: args.userId, role: 'owner', created_at: now });
      const user = (await trx('users').where({ id: args.userId }).first('email')) as { email: string } | undefined;
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
export async function updateWorkspace(db: DbOrTrx, id: string, patch: WorkspacePatch): Promise<WorkspaceRow> {
  const input = patch as unknown as Record<string, unknown>;
  assertValid(input, true);
  const changes: Partial<WorkspaceRow> = {};
  for (const field of ['name', 'website', 'type', 'timezone', 'language', 'logo', 'description'] as const) {
    if (input[field] !== undefined) (changes as Record<string, unknown>)[field] = input[field];
  }
  if (patch.country !== undefined) changes.country = patch.country === null ? null : patch.country.toUpperCase();
  return db.transaction(async (trx) => {
    const before = await getWorkspace(trx, id);
    if (!before) throw new NotFound();
    // Never earlier than created_at, even if the clock stepped back.
    changes.updated_at = Math.max(nowMs(), Number(before.created_at));
    await trx('workspaces').where({ id }).update(changes);
    return { ...before, ...changes } as WorkspaceRow;
  });
}

/**
 * Deletes the workspace and its data: memberships and bound keys cascade, and so must
 * every other table that references workspaces. Its security activity rows stay (they
 * keep account_id, so the account's users can still read them); its other activity rows go.
 */
export async function deleteWorkspace(db: DbOrTrx, id: string): Promise<void> {
  if (!isUuid(id)) throw new NotFound();
  await db.transaction(async (trx) => {
    const n = await trx('workspaces').where({ id }).delete();
    if (n === 0) throw new NotFound();
    await trx('activity').where({ workspace_id: id }).whereNot({ kind: 'security' }).delete();
  });
}
