import { getNextMillis } from 'bullmq';
import { createTask, validateDetailed } from 'node-cron';

// A cron schedule is written in node-cron's syntax and checked by node-cron, but BullMQ runs it (its job schedulers
// read the pattern with cron-parser; src/scheduler/schedules.ts hands it `{ pattern, tz }`). The two read some
// expressions differently (a day of the month together with a day of the week, `W`, ranges that wrap): such an
// expression would not run when its author expects, so a config must not hold one. They are told apart by the times
// each says the schedule fires.
//
// Around a daylight-saving change of the schedule's zone the two libraries also differ, but not in how they read the
// expression: in the hour the change skips or repeats, node-cron (which never runs a schedule here) would skip fires
// that BullMQ makes. What runs is BullMQ's behaviour: a time the spring change skips fires at the same offset after
// it (02:30 Paris fires at 03:30), every fire of an hourly or finer schedule happens in the repeated autumn hour,
// and a daily fire in it happens once. Refusing `*/5 * * * *` for a keeper in New York would help no one, so those
// hours are not compared; docs/configuration.md's schedule paragraph says so, and test/config/cron.test.ts pins
// BullMQ's behaviour there. A zone whose change BullMQ cannot get past (it finds no next fire after Lord Howe's
// half-hour change) is still refused: the schedule would stop.

/** Fire times compared from each starting instant. */
const FIRES = 6;

/** Starting instants, ms: a year's start and end, a half-year's end, a leap February. */
const FIXED_STARTS = ['2025-01-01T00:00:00Z', '2025-06-30T12:00:00Z', '2025-12-31T23:59:30Z', '2028-02-27T12:00:00Z'].map((iso) => Date.parse(iso));

/** Before each offset change, starting points that reach it within FIRES hours, minutes and seconds. */
const BEFORE_CHANGE_MS = [2 * 3_600_000, 60_000, 1_000];

/** Fires this close to an offset change of the zone may differ (ms): the change's own hour and a margin. */
const CHANGE_MARGIN_MS = 3 * 3_600_000;

/** The offset changes looked for: those of these years ([from, to), ms). */
const CHANGES_FROM = Date.UTC(2025, 0, 1);
const CHANGES_TO = Date.UTC(2029, 0, 1);

const DAY_MS = 86_400_000;

/** Why node-cron refuses an expression (its own words); undefined when it accepts it. */
export function nodeCronProblem(expr: string): string | undefined {
  const check = validateDetailed(expr);
  if (check.valid) return undefined;
  return check.errors.map((e) => e.message).join('; ') || 'not a cron expression';
}

const verdicts = new Map<string, string | undefined>();

/**
 * Why a cron schedule cannot be run as written: node-cron refuses it, BullMQ refuses it, or the two disagree on when
 * it fires (FIRES times from each of FIXED_STARTS and from just before each offset change of the zone in 2025-2028;
 * fires within CHANGE_MARGIN_MS of a change may differ, but BullMQ must go on firing and meet node-cron after it). Undefined when they agree. `tz` is the schedule's zone; without one, both run in the
 * process's own.
 */
export function cronProblem(expr: string, tz: string | undefined): string | undefined {
  const zone = tz ?? new Intl.DateTimeFormat().resolvedOptions().timeZone;
  const key = `${tz === undefined ? '' : 'tz:'}${zone}\n${expr}`;
  if (!verdicts.has(key)) verdicts.set(key, judge(expr, tz, zone));
  return verdicts.get(key);
}

function judge(expr: string, tz: string | undefined, zone: string): string | undefined {
  const quoted = JSON.stringify(expr);
  const refused = nodeCronProblem(expr);
  if (refused !== undefined) return `invalid cron expression ${quoted}: ${refused}`;
  let bullNext: (from: number) => number | undefined;
  try {
    bullNext = bullMqNext(expr, tz);
  } catch (err) {
    return `cron expression ${quoted} is valid for node-cron, but BullMQ, which runs the schedules, refuses it: ${err instanceof Error ? err.message : String(err)}`;
  }
  const cronNext = nodeCronNext(expr, zone);
  const changes = offsetChanges(zone);
  const nearChange = (t: number): boolean => changes.some((c) => Math.abs(t - c) < CHANGE_MARGIN_MS);
  // From the fixed starts, and from just before each change: past a change both must go on firing alike.
  const starts = [...FIXED_STARTS.map((at) => ({ at, change: undefined })), ...changes.flatMap((change) => BEFORE_CHANGE_MS.map((ms) => ({ at: change - ms, change })))];
  for (const { at, change } of starts) {
    // A schedule whose next fire is days past the change does not meet it: the fixed starts compare such fires
    // (and node-cron's walk to a fire years away, a 29 February, is slow).
    const first = change === undefined ? undefined : bullNext(at);
    if (change !== undefined && first !== undefined && first > change + 2 * DAY_MS) continue;
    let from = at;
    for (let i = 0; i < FIRES; i++) {
      const cron = cronNext(from);
      const bull = bullNext(from);
      if (cron === bull) {
        from = cron;
        continue;
      }
      // Near an offset change they may differ (BullMQ's behaviour applies); both go on from the later of the two.
      if (bull !== undefined && (nearChange(cron) || nearChange(bull))) {
        from = Math.max(cron, bull);
        continue;
      }
      const where = changes.some((c) => Math.abs(from - c) < DAY_MS) ? `in ${zone} around its offset change` : `in ${zone}`;
      return `node-cron and BullMQ (which runs the schedules) read the cron expression ${quoted} differently ${where}: the first fire after ${iso(from)} is at ${iso(cron)} for node-cron and ${bull === undefined ? 'never' : `at ${iso(bull)}`} for BullMQ; ${bull === undefined ? 'schedule it in UTC (tz: UTC) or use `every`' : 'write it so both read it alike, or use `every`'}`;
    }
  }
  return undefined;
}

function iso(ms: number): string {
  return new Date(ms).toISOString();
}

/**
 * BullMQ's next fire after `from` (ms), as its job schedulers compute it (`getNextMillis` of the options
 * src/scheduler/schedules.ts gives); undefined when it finds none. Throws at once on a pattern BullMQ refuses.
 */
function bullMqNext(expr: string, tz: string | undefined): (from: number) => number | undefined {
  const next = (from: number): number | undefined => getNextMillis(from, { pattern: expr, tz });
  next(FIXED_STARTS[0]!);
  return (from) => {
    try {
      return next(from);
    } catch {
      return undefined;
    }
  };
}

/**
 * node-cron's next fire after `from` (ms), by the walker its tasks schedule with. Its public `getNextRuns` counts
 * from the clock only, so the walker is taken from a task made for the purpose (node-cron 4; checked).
 */
function nodeCronNext(expr: string, zone: string): (from: number) => number {
  const task = createTask(expr, () => undefined, { timezone: zone });
  const matcher = (task as unknown as { timeMatcher?: { getNextMatch?: (date: Date) => Date } }).timeMatcher;
  void task.destroy();
  const getNextMatch = matcher?.getNextMatch;
  if (matcher === undefined || typeof getNextMatch !== 'function') throw new Error('node-cron no longer exposes the next-match walker of its tasks (node-cron 4): update src/config/cron.ts');
  return (from) => getNextMatch.call(matcher, new Date(from)).getTime();
}

const changesByZone = new Map<string, number[]>();

/** The instants (ms) at which the zone's UTC offset changes in [CHANGES_FROM, CHANGES_TO), to the second. */
export function offsetChanges(zone: string): number[] {
  let found = changesByZone.get(zone);
  if (found !== undefined) return found;
  const format = new Intl.DateTimeFormat('en-US', { timeZone: zone, timeZoneName: 'longOffset' });
  const offset = (t: number): string => format.formatToParts(t).find((p) => p.type === 'timeZoneName')?.value ?? '';
  const step = DAY_MS; // no zone changes its offset twice within a day in these years
  found = [];
  for (let t = CHANGES_FROM; t < CHANGES_TO; t += step) {
    if (offset(t) === offset(t + step)) continue;
    let [lo, hi] = [t, t + step];
    while (hi - lo > 1_000) {
      const mid = lo + Math.floor((hi - lo) / 2_000) * 1_000;
      if (offset(mid) === offset(lo)) lo = mid;
      else hi = mid;
    }
    found.push(hi);
  }
  changesByZone.set(zone, found);
  return found;
}
