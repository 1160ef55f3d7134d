// Calendar days as `YYYY-MM-DD` strings (UTC), the form the date column holds on both engines.
// Day arithmetic is integer arithmetic on days since 1970-01-01 (Howard Hinnant's civil-date
// algorithms): a deploy detail does about a hundred of these, and Date#toISOString is slow.

const DAY_MS = 86_400_000;
const DAY_SHAPE = /^\d{4}-\d{2}-\d{2}$/;

/** Days since 1970-01-01 of a proleptic Gregorian date. */
function daysFromCivil(y: number, m: number, d: number): number {
  y -= m <= 2 ? 1 : 0;
  const era = Math.floor(y / 400);
  const yoe = y - era * 400;
  const doy = Math.floor((153 * (m + (m > 2 ? -3 : 9)) + 2) / 5) + d - 1;
  const doe = yoe * 365 + Math.floor(yoe / 4) - Math.floor(yoe / 100) + doy;
  return era * 146097 + doe - 719468;
}

/** `YYYY-MM-DD` of days since 1970-01-01. */
function civilFromDays(z: number): string {
  z += 719468;
  const era = Math.floor(z / 146097);
  const doe = z - era * 146097;
  const yoe = Math.floor((doe - Math.floor(doe / 1460) + Math.floor(doe / 36524) - Math.floor(doe / 146096)) / 365);
  const doy = doe - (365 * yoe + Math.floor(yoe / 4) - Math.floor(yoe / 100));
  const mp = Math.floor((5 * doy + 2) / 153);
  const d = doy - Math.floor((153 * mp + 2) / 5) + 1;
  const m = mp + (mp < 10 ? 3 : -9);
  const y = yoe + era * 400 + (m <= 2 ? 1 : 0);
  return `${String(y).padStart(4, '0')}-${m < 10 ? '0' : ''}${m}-${d < 10 ? '0' : ''}${d}`;
}

/** Days since 1970-01-01 of a `YYYY-MM-DD` day. */
function dayNumber(day: string): number {
  return daysFromCivil(Number(day.slice(0, 4)), Number(day.slice(5, 7)), Number(day.slice(8, 10)));
}

/** The UTC calendar day of an epoch-ms instant. */
export function dayOf(ms: number): string {
  return civilFromDays(Math.floor(ms / DAY_MS));
}

/** Epoch ms of a day's midnight UTC. */
export function dayStartMs(day: string): number {
  return dayNumber(day) * DAY_MS;
}

/** The day `n` days after `day` (before, for negative `n`). */
export function addDays(day: string, n: number): string {
  return civilFromDays(dayNumber(day) + n);
}

/** Whole days from `a` to `b` (positive when `b` is later). */
export function daysBetween(a: string, b: string): number {
  return dayNumber(b) - dayNumber(a);
}

/** Every day from `from` to `to`, both included (empty when `to` is before `from`). */
export function dayRange(from: string, to: string): string[] {
  const out: string[] = [];
  for (let n = dayNumber(from), last = dayNumber(to); n <= last; n++) out.push(civilFromDays(n));
  return out;
}

/** Whether `s` is a real calendar day written `YYYY-MM-DD` (years 1000 to 9999). */
export function isDay(s: string): boolean {
  if (!DAY_SHAPE.test(s) || s < '1000') return false;
  const m = Number(s.slice(5, 7));
  const d = Number(s.slice(8, 10));
  return m >= 1 && m <= 12 && d >= 1 && civilFromDays(dayNumber(s)) === s;
}
