// The slots of a workspace's schedule (spec/workspaces.tsp CheckSchedule, CrawlSchedule): pure
// functions of the schedule, the wall-clock time, the IANA zone and an instant. Wall-clock times
// are converted with Intl, so daylight saving time follows the zone's own rules.

const MINUTE = 60_000;
const HOUR = 60 * MINUTE;
const DAY = 24 * HOUR;

export type SlotSchedule = 'hourly' | 'daily' | 'weekly';

const formatters = new Map<string, Intl.DateTimeFormat>();

function formatter(timeZone: string): Intl.DateTimeFormat {
  let f = formatters.get(timeZone);
  if (!f) {
    f = new Intl.DateTimeFormat('en-US', { timeZone, hourCycle: 'h23', year: 'numeric', month: '2-digit', day: '2-digit', hour: '2-digit', minute: '2-digit', second: '2-digit' });
    formatters.set(timeZone, f);
  }
  return f;
}

/** The wall-clock time at `t` in `timeZone`, as if it were UTC (epoch ms, whole seconds). */
export function wallClock(t: number, timeZone: string): number {
  const p: Record<string, number> = {};
  for (const part of formatter(timeZone).formatToParts(t)) if (part.type !== 'literal') p[part.type] = Number(part.value);
  return Date.UTC(p.year, p.month - 1, p.day, p.hour, p.minute, p.second);
}

/** The zone's offset from UTC at `t`, in ms (wall clock minus UTC). */
function offsetAt(t: number, timeZone: string): number {
  return wallClock(Math.floor(t / 1000) * 1000, timeZone) - Math.floor(t / 1000) * 1000;
}

/**
 * The instant at which the clock in `timeZone` reads `wall` (a wall-clock time as UTC ms). A time
 * that happens twice (clocks going back) is its first occurrence; a time that does not exist
 * (clocks going forward) is moved later by the jump (02:30 becomes 03:30).
 */
export function instantOf(wall: number, timeZone: string): number {
  // Transitions are hours apart at most once a day: the offsets a day either side cover both.
  const offsets = [...new Set([offsetAt(wall - DAY, timeZone), offsetAt(wall, timeZone), offsetAt(wall + DAY, timeZone)])];
  const candidates = offsets.map((o) => wall - o);
  const exact = candidates.filter((t) => wallClock(t, timeZone) === wall);
  if (exact.length > 0) return Math.min(...exact);
  // In the gap: the offset in force before the jump puts it the jump's length later.
  return Math.max(...candidates);
}

function parseTime(time: string): { hour: number; minute: number } {
  const m = /^(\d{2}):(\d{2})$/.exec(time);
  if (!m) throw new Error(`not a wall time: ${time}`);
  return { hour: Number(m[1]), minute: Number(m[2]) };
}

/**
 * The newest slot at or before `now`: the instant a check or crawl of this schedule was last due.
 * Hourly: every real hour at `time`'s minute of the local clock. Daily: `time` on each local day.
 * Weekly: `time` on each local Monday.
 */
export function latestSlot(schedule: SlotSchedule, time: string, timeZone: string, now: number): number {
  const { hour, minute } = parseTime(time);
  if (schedule === 'hourly') {
    // The local minute is the same every real hour except across a transition of part of an
    // hour: look back minute by minute (at most two hours).
    let t = Math.floor(now / MINUTE) * MINUTE;
    for (let i = 0; i <= 120; i++, t -= MINUTE) if (new Date(wallClock(t, timeZone)).getUTCMinutes() === minute) return t;
    throw new Error(`no hourly slot found for ${timeZone}`);
  }
  const today = Math.floor(wallClock(now, timeZone) / DAY) * DAY;
  for (let d = 0; d <= 8; d++) {
    const day = today - d * DAY;
    if (schedule === 'weekly' && new Date(day).getUTCDay() !== 1) continue;
    const slot = instantOf(day + hour * HOUR + minute * MINUTE, timeZone);
    if (slot <= now) return slot;
  }
  throw new Error(`no ${schedule} slot found for ${timeZone}`);
}
