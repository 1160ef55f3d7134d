// Calendar days as `YYYY-MM-DD` strings (UTC), the form the date column holds on both engines.

const DAY_MS = 86_400_000;
const DAY_SHAPE = /^\d{4}-\d{2}-\d{2}$/;

/** The UTC calendar day of an epoch-ms instant. */
export function dayOf(ms: number): string {
  return new Date(ms).toISOString().slice(0, 10);
}

/** Epoch ms of a day's midnight UTC. */
export function dayStartMs(day: string): number {
  return Date.parse(`${day}T00:00:00.000Z`);
}

/** The day `n` days after `day` (before, for negative `n`). */
export function addDays(day: string, n: number): string {
  return dayOf(dayStartMs(day) + n * DAY_MS);
}

/** Whole days from `a` to `b` (positive when `b` is later). */
export function daysBetween(a: string, b: string): number {
  return Math.round((dayStartMs(b) - dayStartMs(a)) / DAY_MS);
}

/** Every day from `from` to `to`, both included (empty when `to` is before `from`). */
export function dayRange(from: string, to: string): string[] {
  const out: string[] = [];
  for (let d = from; d <= to; d = addDays(d, 1)) out.push(d);
  return out;
}

/** Whether `s` is a real calendar day written `YYYY-MM-DD` (years 1000 to 9999). */
export function isDay(s: string): boolean {
  if (!DAY_SHAPE.test(s) || s < '1000') return false;
  const ms = dayStartMs(s);
  return Number.isFinite(ms) && dayOf(ms) === s;
}
