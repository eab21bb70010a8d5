/**
 * Crash points for the exactly-once tests: when JUPKEEPER_CRASH_AT names a step, the process kills itself with
 * SIGKILL on reaching it, exactly as an OOM kill or a pulled plug would, leaving Redis as that step left it.
 * Unset in normal runs; the check is one environment lookup.
 */
export type CrashPoint = 'after-build' | 'after-sign' | 'after-submit';

/** Kills the process when the configured crash point is reached. */
export function crashPoint(point: CrashPoint): void {
  if (process.env.JUPKEEPER_CRASH_AT === point) process.kill(process.pid, 'SIGKILL');
}
