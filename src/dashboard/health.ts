import type { WorkerBeat } from '../store/heartbeats.js';

/** What /healthz answers. */
export interface HealthReport {
  healthy: boolean;
  /** Why not, when not. */
  problem: string | null;
  /** Every worker process's last beat, with its age. */
  workers: Array<{ id: string; ageMs: number; fresh: boolean; stopped: string[]; lastJobAt: number | null }>;
}

/**
 * Judges the deployment's workers from their heartbeats: healthy while at least one worker process beat within
 * `staleMs` with every queue's worker running, and, when this process runs workers itself, its own beat is among
 * those. A process whose workers crashed or hung stops beating (or beats with a stopped queue) and turns this bad.
 */
export function judgeHealth(beats: ReadonlyMap<string, WorkerBeat>, now: number, staleMs: number, ownId: string | undefined): HealthReport {
  const workers = [...beats].map(([id, b]) => {
    const stopped = Object.entries(b.queues).filter(([, running]) => !running).map(([q]) => q);
    return { id, ageMs: Math.max(0, now - b.at), fresh: now - b.at <= staleMs, stopped, lastJobAt: b.lastJobAt };
  });
  const good = workers.filter((w) => w.fresh && w.stopped.length === 0);
  let problem: string | null = null;
  const own = ownId === undefined ? undefined : workers.find((w) => w.id === ownId);
  if (ownId !== undefined && !own) problem = "this process's workers are not beating";
  else if (own && !own.fresh) problem = `this process's workers last beat ${Math.round(own.ageMs / 1000)} s ago`;
  else if (own && own.stopped.length > 0) problem = `this process's workers of ${own.stopped.join(', ')} stopped`;
  else if (good.length === 0) problem = workers.length === 0 ? 'no worker process is beating' : `no worker process beat within ${Math.round(staleMs / 1000)} s with every queue running`;
  return { healthy: problem === null, problem, workers };
}
