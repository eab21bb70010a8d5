import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { getNextMillis } from 'bullmq';
import { createTask, validate } from 'node-cron';
import { afterAll, describe, expect, it } from 'vitest';
import { ConfigError, parseConfig, scheduleSchema } from '../../src/config/index.js';
import { builtinStrategies } from '../../strategies/index.js';
import { ROOT } from '../helpers/keeper.js';

// node-cron checks a config's cron expressions and BullMQ (cron-parser) runs them: every expression the config
// accepts must fire at the same times for both, and the config must refuse the others.

/** The cron expressions of the project's configs, README and docs/ pages (docs/configuration.md's schedules). */
function projectExpressions(): string[] {
  const inDir = (d: string, ext: string) => readdirSync(join(ROOT, d)).filter((f) => f.endsWith(ext)).map((f) => join(ROOT, d, f));
  const files = [join(ROOT, 'README.md'), ...inDir('docs', '.md'), ...inDir('config', '.yaml'), ...inDir('config/examples', '.yaml')];
  return files.flatMap((f) => [...readFileSync(f, 'utf8').matchAll(/cron: "([^"]+)"/g)].map((m) => m[1]!));
}

/** Edge cases, with what a config does with each in UTC: 'accepted', or why it is refused. */
const EDGE_CASES: Record<string, 'accepted' | 'node-cron refuses' | 'BullMQ refuses' | 'they differ'> = {
  '* * * * *': 'accepted',
  '*/5 * * * *': 'accepted',
  '*/15 * * * * *': 'accepted', // 6 fields: seconds first
  '0 30 9 * * *': 'accepted',
  '0 9-17 * * 1-5': 'accepted',
  '1-10/3 * * * *': 'accepted',
  '0 0 1,15 * *': 'accepted',
  '0 0 */10 * *': 'accepted',
  '0 12 * JAN,jul *': 'accepted',
  '0 12 * * MON-FRI': 'accepted',
  '0 12 * * mon': 'accepted',
  '0 0 * * 0,7': 'BullMQ refuses', // Sunday both ways: cron-parser calls 0 and 7 a duplicate
  '0 0 * * 0-7': 'accepted',
  '0 0 L * *': 'accepted',
  '0 0 * * 5L': 'accepted',
  '0 0 * * 1#2': 'accepted',
  '0 0 ? * MON': 'accepted',
  '0 0 29 2 *': 'accepted',
  '0 0 31 * *': 'accepted',
  '@hourly': 'accepted',
  '@daily': 'accepted',
  '@weekly': 'accepted',
  '@monthly': 'accepted',
  '@yearly': 'accepted',
  '@annually': 'accepted',
  '61 * * * *': 'node-cron refuses',
  '5/15 * * * *': 'node-cron refuses',
  '* *': 'node-cron refuses',
  '0 0 30 2 *': 'node-cron refuses',
  '@minutely': 'node-cron refuses',
  '@weekdays': 'node-cron refuses',
  '0 0 H * *': 'node-cron refuses',
  '0 0 15W * *': 'BullMQ refuses',
  '0 0 LW * *': 'BullMQ refuses',
  '0 0 L-2 * *': 'BullMQ refuses',
  '0 22-2 * * *': 'BullMQ refuses', // a range that wraps
  '0 0 * * FRI-MON': 'BullMQ refuses',
  '@midnight': 'BullMQ refuses',
  '@HOURLY': 'BullMQ refuses',
  '0 0 1 * MON': 'they differ', // day of month and day of week: node-cron needs both, BullMQ either
  '0 0 1,15 * 1-5': 'they differ',
};

/** Zones a schedule names: none (the process's own), UTC, daylight-saving ones, whole and half-hour offsets. */
const ZONES = [undefined, 'UTC', 'America/New_York', 'Europe/Paris', 'Australia/Sydney', 'Asia/Kolkata', 'Asia/Kathmandu', 'Australia/Lord_Howe'];

/** Where the comparison starts: instants of the test's own, and before each offset change of 2026-2027. */
const STARTS = ['2026-05-15T10:20:30Z', '2027-12-31T22:00:00Z', '2032-02-28T00:00:00Z', '2033-10-31T23:59:59Z'].map((iso) => Date.parse(iso));
const FIRES = 6;

const changesByZone = new Map<string, number[]>();

/** Instants (ms) at which a zone's offset changes in 2026-2027, found by a daily scan refined to the minute. */
function offsetChanges(zone: string): number[] {
  const known = changesByZone.get(zone);
  if (known !== undefined) return known;
  const f = new Intl.DateTimeFormat('en-US', { timeZone: zone, timeZoneName: 'longOffset' });
  const offset = (t: number) => f.formatToParts(t).find((p) => p.type === 'timeZoneName')?.value ?? '';
  const out: number[] = [];
  for (let t = Date.UTC(2026, 0, 1); t < Date.UTC(2028, 0, 1); t += 86_400_000) {
    if (offset(t) === offset(t + 86_400_000)) continue;
    let m = t;
    while (offset(m) === offset(t)) m += 60_000;
    out.push(m);
  }
  changesByZone.set(zone, out);
  return out;
}

type CronTask = ReturnType<typeof createTask>;
const tasks = new Map<string, CronTask>();

/** node-cron's task for an expression in a zone (the process's own when none), made once: the walks reuse it. */
function cronTask(expr: string, zone: string | undefined): CronTask {
  // Without a zone, the process's own, as src/config/cron.ts reads it (node-cron's default is fixed at its load).
  const timezone = zone ?? new Intl.DateTimeFormat().resolvedOptions().timeZone;
  const key = `${timezone}\n${expr}`;
  let task = tasks.get(key);
  if (task === undefined) tasks.set(key, (task = createTask(expr, () => undefined, { timezone })));
  return task;
}

/** node-cron's fires after `from`: the walker of its tasks (its getNextRuns counts from the clock only). */
function nodeCronFires(expr: string, zone: string | undefined, from: number, n: number): number[] {
  const task = cronTask(expr, zone);
  const walker = (task as unknown as { timeMatcher: { getNextMatch(d: Date): Date } }).timeMatcher;
  const out: number[] = [];
  for (let t = from; out.length < n; ) out.push((t = walker.getNextMatch(new Date(t)).getTime()));
  // Each is a time node-cron's own matcher (public API) says the schedule fires at.
  for (const t of out) expect(task.match(new Date(t)), `${expr} ${zone} ${new Date(t).toISOString()}`).toBe(true);
  return out;
}

/** BullMQ's fires after `from`, as its job schedulers compute them from the options src/scheduler/schedules.ts gives. */
function bullMqFires(expr: string, tz: string | undefined, from: number, n: number): Array<number | undefined> {
  const out: Array<number | undefined> = [];
  for (let t: number | undefined = from; out.length < n; ) out.push((t = t === undefined ? undefined : getNextMillis(t, { pattern: expr, tz })));
  return out;
}

function accepts(expr: string, tz: string | undefined): { ok: true } | { ok: false; message: string } {
  const r = scheduleSchema.safeParse(tz === undefined ? { cron: expr } : { cron: expr, tz });
  return r.success ? { ok: true } : { ok: false, message: r.error.issues.map((i) => i.message).join('; ') };
}

/** Within this of an offset change of the zone, the two libraries may differ (what src/config/cron.ts leaves out). */
const CHANGE_MARGIN_MS = 3 * 3_600_000;

/**
 * Checks that node-cron and BullMQ agree from every start, the starts just before each offset change included;
 * returns the disagreements. A fire within CHANGE_MARGIN_MS of a change may differ (BullMQ's behaviour there is
 * pinned below), but the schedules must meet again right after it.
 */
function disagreements(expr: string, tz: string | undefined, zone: string | undefined): string[] {
  const found: string[] = [];
  const changes = offsetChanges(zone ?? new Intl.DateTimeFormat().resolvedOptions().timeZone);
  const nearChange = (t: number | undefined) => t !== undefined && changes.some((c) => Math.abs(t - c) < CHANGE_MARGIN_MS);
  for (const [start, change] of [...STARTS.map((s) => [s, undefined] as const), ...changes.flatMap((c) => [c - 7_200_000, c - 60_000, c - 1_000].map((s) => [s, c] as const))]) {
    const bull = bullMqFires(expr, tz, start, FIRES);
    // Fires days after the change are ordinary ones, which STARTS compare.
    if (change !== undefined && bull[0] !== undefined && bull[0] > change + 2 * 86_400_000) continue;
    const cron = nodeCronFires(expr, zone, start, FIRES);
    const cronFar = cron.filter((t) => !nearChange(t));
    const bullFar = bull.filter((t) => !nearChange(t));
    // Away from the change, the fires of one are the other's: compare over the span both walked.
    const until = Math.min(cron.at(-1)!, bull.at(-1) ?? Infinity);
    const a = cronFar.filter((t) => t <= until);
    const b = bullFar.filter((t) => t !== undefined && t <= until);
    if (a.join() !== b.join()) found.push(`${expr} in ${zone ?? 'local'} from ${new Date(start).toISOString()}: node-cron ${cron.map((t) => new Date(t).toISOString()).join(', ')}; BullMQ ${bull.map((t) => (t === undefined ? 'none' : new Date(t).toISOString())).join(', ')}`);
  }
  return found;
}

describe('cron schedules: node-cron validates, BullMQ runs', () => {
  const corpus = [...new Set([...projectExpressions(), ...Object.keys(EDGE_CASES)])];
  const savedTz = process.env.TZ;
  afterAll(() => {
    for (const task of tasks.values()) void task.destroy();
    if (savedTz === undefined) delete process.env.TZ;
    else process.env.TZ = savedTz;
  });

  it('the corpus holds the configs\' own expressions', () => {
    expect(projectExpressions()).toEqual(expect.arrayContaining(['0 9 * * *', '0 14 * * *', '*/5 * * * *']));
  });

  it('accepts or refuses each edge case as expected, in UTC', () => {
    const got = Object.fromEntries(Object.keys(EDGE_CASES).map((expr) => {
      const r = accepts(expr, 'UTC');
      const why = r.ok ? 'accepted' : r.message.startsWith('invalid cron expression') ? 'node-cron refuses' : r.message.includes('BullMQ, which runs the schedules, refuses') ? 'BullMQ refuses' : r.message.includes('read the cron expression') ? 'they differ' : r.message;
      return [expr, why];
    }));
    expect(got).toEqual(EDGE_CASES);
  });

  // A schedule naming its zone reads the same in any process: the run in Paris checks those without one.
  const zonesOf = (processZone: string) => (processZone === 'UTC' ? ZONES : [undefined]);
  for (const processZone of ['UTC', 'Europe/Paris']) {
    it(`agrees on the next fire times of every expression it accepts, with and without tz (process in ${processZone})`, () => {
      process.env.TZ = processZone;
      const checked: string[] = [];
      const found: string[] = [];
      for (const expr of corpus) {
        for (const tz of zonesOf(processZone)) {
          if (!accepts(expr, tz).ok) continue;
          expect(validate(expr)).toBe(true);
          found.push(...disagreements(expr, tz, tz));
          checked.push(`${expr}|${tz ?? ''}`);
        }
      }
      expect(found).toEqual([]);
      // A zone with daylight saving accepts what UTC accepts: a change is no reason to refuse an expression. (Lord
      // Howe's half-hour change is one BullMQ cannot get past: see the next test.)
      const acceptedInUtc = corpus.filter((expr) => accepts(expr, 'UTC').ok);
      for (const tz of zonesOf(processZone).filter((z) => z !== 'Australia/Lord_Howe')) expect(acceptedInUtc.filter((expr) => !checked.includes(`${expr}|${tz ?? ''}`)), tz).toEqual([]);
    }, 180_000); // both libraries walked over 45 expressions in 8 zones: CPU-bound, about 20 s on an idle core
  }

  it('every refusal for disagreeing is a real disagreement: each reading\'s time checked with the other', () => {
    const refused: string[] = [];
    for (const expr of corpus) {
      for (const tz of ZONES) {
        const r = accepts(expr, tz);
        if (r.ok || !r.message.includes('read the cron expression')) continue;
        refused.push(`${expr}|${tz ?? ''}`);
        const [, fromAt, cronAt, bullAt] = /the first fire after (\S+) is at (\S+) for node-cron and (?:at (\S+)|never) for BullMQ/.exec(r.message) ?? [];
        expect(cronAt, r.message).toBeDefined();
        const from = Date.parse(fromAt!);
        const cron = Date.parse(cronAt!);
        // node-cron's own matcher fires then; BullMQ's next fire after the same instant is elsewhere, or none at all.
        const task = createTask(expr, () => undefined, tz === undefined ? {} : { timezone: tz });
        expect(task.match(new Date(cron))).toBe(true);
        void task.destroy();
        let bullNext: number | undefined;
        try {
          bullNext = getNextMillis(from, { pattern: expr, tz });
        } catch {
          bullNext = undefined; // cron-parser throws when it finds no next fire
        }
        expect(bullNext, r.message).toBe(bullAt === undefined ? undefined : Date.parse(bullAt));
        expect(bullNext).not.toBe(cron);
      }
    }
    // The EDGE_CASES that differ, in every zone; and in Lord Howe, where BullMQ finds no fire after the autumn change,
    // the schedules that fire within a few hours of it.
    const differ = Object.entries(EDGE_CASES).filter(([, v]) => v === 'they differ').map(([expr]) => expr);
    expect(refused.filter((r) => !r.endsWith('|Australia/Lord_Howe')).sort()).toEqual(differ.flatMap((expr) => ZONES.filter((z) => z !== 'Australia/Lord_Howe').map((z) => `${expr}|${z ?? ''}`)).sort());
    expect(refused.filter((r) => r.endsWith('|Australia/Lord_Howe'))).toEqual(expect.arrayContaining(['0 9 * * *|Australia/Lord_Howe', '@hourly|Australia/Lord_Howe', ...differ.map((e) => `${e}|Australia/Lord_Howe`)]));
  }, 180_000); // run alone, it judges every expression in every zone itself (the run above leaves them cached)

  it('a config naming one is refused with the field\'s path and both readings', () => {
    const config = (schedule: string) => `venue: { kind: simulator }\nwallet: { paper: true }\nstrategies:\n  - { id: dca, strategy: dca-swap, schedule: ${schedule}, params: { inputMint: SOL, outputMint: USDC, amount: "1000000" } }\n`;
    const issues = (schedule: string) => {
      try {
        parseConfig(config(schedule), 'cron.yaml', builtinStrategies, {});
        return [];
      } catch (err) {
        if (!(err instanceof ConfigError)) throw err;
        return err.issues.map((i) => `${i.path}: ${i.message}`);
      }
    };
    expect(issues('{ cron: "0 0 1 * MON", tz: UTC }')).toEqual([
      'strategies[0].schedule.cron: node-cron and BullMQ (which runs the schedules) read the cron expression "0 0 1 * MON" differently in UTC: the first fire after 2025-01-01T00:00:00.000Z is at 2025-09-01T00:00:00.000Z for node-cron and at 2025-01-06T00:00:00.000Z for BullMQ; write it so both read it alike, or use `every`',
    ]);
    // A time a daylight-saving change skips or repeats is no reason to refuse: BullMQ's behaviour there is pinned below.
    expect(issues('{ cron: "30 2 * * *", tz: Europe/Paris }')).toEqual([]);
    expect(issues('{ cron: "*/5 * * * *", tz: America/New_York }')).toEqual([]);
    expect(issues('{ cron: "0 0 15W * *" }')).toEqual(['strategies[0].schedule.cron: cron expression "0 0 15W * *" is valid for node-cron, but BullMQ, which runs the schedules, refuses it: Invalid characters, got value: 15W']);
    expect(issues('{ cron: "0 14 * * *", tz: Europe/Paris }')).toEqual([]);
  });

  it('around a daylight-saving change, a schedule runs as docs/configuration.md says: BullMQ\'s fires, none lost, none doubled', () => {
    const iso = (t: number) => new Date(t).toISOString();
    const walk = (expr: string, tz: string, from: string, n: number) => bullMqFires(expr, tz, Date.parse(from), n).map((t) => iso(t!));
    // Paris skips 02:00-03:00 on 2025-03-30: 02:30 fires at 03:30 that day (01:30Z), at 02:30 (00:30Z) the next.
    expect(walk('30 2 * * *', 'Europe/Paris', '2025-03-29T12:00:00Z', 2)).toEqual(['2025-03-30T01:30:00.000Z', '2025-03-31T00:30:00.000Z']);
    // Paris repeats 02:00-03:00 on 2025-10-26: 02:30 fires once, in the first of the two (00:30Z).
    expect(walk('30 2 * * *', 'Europe/Paris', '2025-10-25T12:00:00Z', 2)).toEqual(['2025-10-26T00:30:00.000Z', '2025-10-27T01:30:00.000Z']);
    // Every 20 minutes keeps firing every 20 minutes of real time through both hours.
    expect(walk('*/20 * * * *', 'Europe/Paris', '2025-10-25T23:30:00Z', 9)).toEqual(['23:40', '00:00', '00:20', '00:40', '01:00', '01:20', '01:40', '02:00', '02:20'].map((hm, i) => `2025-10-${i === 0 ? 25 : 26}T${hm}:00.000Z`));
    expect(walk('*/20 * * * *', 'America/New_York', '2025-03-09T06:30:00Z', 6)).toEqual(['06:40', '07:00', '07:20', '07:40', '08:00', '08:20'].map((hm) => `2025-03-09T${hm}:00.000Z`));
  });
});
