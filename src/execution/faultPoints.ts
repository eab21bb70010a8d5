/**
 * Fault points for the exactly-once tests. When JUPKEEPER_CRASH_AT names a step, the process kills itself with
 * SIGKILL on reaching it, exactly as an OOM kill or a pulled plug would, leaving Redis as that step left it. When
 * JUPKEEPER_PAUSE_AT names a step, the process says so on stderr (`JUPKEEPER_PAUSED <step>`) and waits there for
 * SIGUSR2, so that a test can do something to the world at that exact moment (kill Redis right after the `signed`
 * write). Unset in normal runs; each check is one environment lookup.
 */
export type CrashPoint = 'after-build' | 'after-sign' | 'after-submit';

/** Kills the process when the configured crash point is reached. */
export function crashPoint(point: CrashPoint): void {
  if (process.env.JUPKEEPER_CRASH_AT === point) process.kill(process.pid, 'SIGKILL');
}

/** Waits for SIGUSR2 when the configured pause point is reached (at most once per process). */
export async function pausePoint(point: CrashPoint): Promise<void> {
  if (process.env.JUPKEEPER_PAUSE_AT !== point || paused) return;
  paused = true;
  const resumed = new Promise<void>((resolve) => process.once('SIGUSR2', () => resolve()));
  process.stderr.write(`JUPKEEPER_PAUSED ${point}\n`);
  await resumed;
}

let paused = false;
