import type { FieldError } from '../platform/index.ts';

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
  if (!/^https?:\/\//i.test(value)) return false;
  try {
    return new URL(value).hostname.length > 0;
  } catch {
    return false;
  }
}

type Check = [field: 'website' | 'timezone' | 'language' | 'country', ok: (v: unknown) => boolean, message: string];

// The schema (spec/workspaces.tsp) has already checked types and lengths; these are the rules
// a JSON schema cannot express.
const CHECKS: Check[] = [
  ['website', (v) => typeof v === 'string' && isWebsite(v), 'must be an http or https URL with a host'],
  ['timezone', isIanaTimezone, 'must be an IANA time zone such as Europe/Berlin'],
  ['language', isBcp47, 'must be a BCP 47 language tag such as en or pt-BR'],
  ['country', isIsoCountry, 'must be an ISO 3166-1 alpha-2 country code such as DE'],
];

/** Field errors (body pointers) of a schema-valid create input or update patch. */
export function workspaceFieldErrors(input: { website?: unknown; timezone?: unknown; language?: unknown; country?: unknown }): FieldError[] {
  const errors: FieldError[] = [];
  for (const [field, ok, message] of CHECKS) {
    const v = input[field];
    if (v === undefined || v === null) continue;
    if (!ok(v)) errors.push({ in: 'body', path: `/${field}`, message });
  }
  return errors;
}
