// One place for "now" so tests of schedules and retention can move time without sleeping.
let offsetMs = 0;

export function nowMs(): number {
  return Date.now() + offsetMs;
}

export function toIso(ms: number | null | undefined): string | null {
  return ms === null || ms === undefined ? null : new Date(Number(ms)).toISOString();
}

/** Test hook: shift this process's clock. */
export function setClockOffset(ms: number): void {
  offsetMs = ms;
}
