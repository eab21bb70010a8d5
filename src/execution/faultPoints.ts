/**
 * Fault points for the exactly-once tests. When JUPKEEPER_CRASH_AT names a step, the process kills itself with
 * SIGKILL on reaching it, exactly as an OOM kill or a pulled plug would, leaving Redis as that step left it. When
 * JUPKEEPER_PAUSE_AT names a step, the process says so on stderr (`JUPKEEPER_PAUSED <step>`) and waits there for
 * SIGUSR2, so that a test can do something to the world at that exact moment (kill Redis right after the `signed`
 * write, or let another worker take the intent over). JUPKEEPER_FAULT_ARRIVALS (default 1) makes the fault wait for
 * that many intents of the process to reach the step: the earlier ones wait there, so that one process crashed or
 * paused leaves every intent it executes at the same step. Unset in normal runs; each check is one environment
 * lookup.
 */
export type CrashPoint = 'after-build' | 'after-sign' | 'after-submit';

/** Crashes or pauses the process at this step when the environment asks for it; a no-op otherwise. */
export async function faultPoint(point: CrashPoint): Promise<void> {
  if (process.env.JUPKEEPER_CRASH_AT === point) await crashAt(point);
  if (process.env.JUPKEEPER_PAUSE_AT === point) await pauseAt(point);
}

/** SIGKILL once the configured number of intents reached the step; the earlier arrivals never go on. */
async function crashAt(point: CrashPoint): Promise<void> {
  if (!allArrived(point)) await new Promise<never>(() => undefined);
  process.kill(process.pid, 'SIGKILL');
  // SIGKILL cannot be caught; nothing after this line runs.
  await new Promise<never>(() => undefined);
}

/** Waits for SIGUSR2 once the configured number of intents reached the step (at most once per process). */
async function pauseAt(point: CrashPoint): Promise<void> {
  if (released) return;
  const resumed = (paused ??= new Promise<void>((resolve) => process.once('SIGUSR2', () => {
    released = true;
    resolve();
  })));
  if (allArrived(point)) process.stderr.write(`JUPKEEPER_PAUSED ${point}\n`);
  await resumed;
}

/** Counts an arrival at a step; true for the arrival that completes the configured number. */
function allArrived(point: CrashPoint): boolean {
  const n = (arrived.get(point) ?? 0) + 1;
  arrived.set(point, n);
  const wanted = Number(process.env.JUPKEEPER_FAULT_ARRIVALS ?? '1');
  return n === (Number.isSafeInteger(wanted) && wanted > 0 ? wanted : 1);
}

const arrived = new Map<CrashPoint, number>();
let paused: Promise<void> | undefined;
let released = false;
