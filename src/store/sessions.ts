import type { Redis } from 'ioredis';
import { evalScript } from './scripts.js';
import { globEscape, scanKeys } from './scan.js';

/**
 * A session is one run of a keeper: it starts when the keeper (its scheduler, or the all-in-one process) starts and
 * lasts until the next start on the same prefix. A paper start's new session is also a new simulator and wallet
 * (see paperSession.ts); a live keeper's restart is a new session on the same wallet. Sessions are numbered 1, 2, …
 * per prefix and kept as a sorted set of their starts, so that anything with a time (a trade, an intent) names the
 * session it happened in: the last one started at or before it. `trades`, the summary, status and the dashboard
 * default to the current session; `trades --all` lists every one.
 */

/** One session: its number and when it started (unix ms). */
export interface Session {
  id: number;
  startedAt: number;
}

/** The Redis keys of the sessions under a prefix: both survive a paper session's rollover. */
export function sessionKeys(prefix: string): { starts: string; seq: string } {
  return { starts: `${prefix}:sessions`, seq: `${prefix}:sessions:seq` };
}

// Numbers the new session, records its start, and notes on each P&L book where the session starts from (its
// realised P&L, volume and fills), so that a book tells its session's share from its total. KEYS[1] the starts,
// KEYS[2] the sequence, KEYS[3] the meta hash, KEYS[4..] the P&L books; ARGV[1] the start (unix ms).
const BEGIN_LUA = `
local id = redis.call('INCR', KEYS[2])
redis.call('ZADD', KEYS[1], ARGV[1], tostring(id))
redis.call('HSET', KEYS[3], 'session', tostring(id), 'sessionStartedAt', ARGV[1])
for i = 4, #KEYS do
  local v = redis.call('HMGET', KEYS[i], 'realizedUsd', 'volumeUsd', 'fills')
  redis.call('HSET', KEYS[i], 'session', tostring(id), 'baseRealizedUsd', v[1] or '0', 'baseVolumeUsd', v[2] or '0', 'baseFills', v[3] or '0')
end
return id
`;

/** Starts a new session on `prefix` at `now` (see the comment above) and returns it. */
export async function beginSession(redis: Redis, prefix: string, now: number): Promise<Session> {
  const books = await scanKeys(redis, `${globEscape(prefix)}:pnl:*`);
  const keys = sessionKeys(prefix);
  const id = Number(await evalScript(redis, BEGIN_LUA, 3 + books.length, keys.starts, keys.seq, `${prefix}:meta`, ...books, String(now)));
  return { id, startedAt: now };
}

/**
 * The session of a keeper process starting: a new one for the scheduler or an all-in-one keeper (`role` all); a
 * worker joining a deployment takes the current one (and begins the first if there is none).
 */
export async function startSession(redis: Redis, prefix: string, role: string, now: number): Promise<Session> {
  const current = role === 'worker' ? (await readSessions(redis, prefix)).at(-1) : undefined;
  return current ?? beginSession(redis, prefix, now);
}

/** Every session of a prefix, oldest first; empty when no keeper of this version started there. Read-only. */
export async function readSessions(redis: Redis, prefix: string): Promise<Session[]> {
  const raw = await redis.zrange(sessionKeys(prefix).starts, 0, -1, 'WITHSCORES');
  const out: Session[] = [];
  for (let i = 0; i + 1 < raw.length; i += 2) {
    const id = Number(raw[i]);
    const startedAt = Number(raw[i + 1]);
    if (Number.isSafeInteger(id) && Number.isFinite(startedAt)) out.push({ id, startedAt });
  }
  return out.sort((a, b) => a.startedAt - b.startedAt || a.id - b.id);
}

/** The session a time (unix ms) belongs to: the last one started at or before it; undefined before the first. */
export function sessionAt(sessions: readonly Session[], at: number): Session | undefined {
  let found: Session | undefined;
  for (const s of sessions) {
    if (s.startedAt <= at) found = s;
    else break;
  }
  return found;
}

/** The time window of a session, unix ms: from its start to the next one's (exclusive), open-ended for the last. */
export function sessionWindow(sessions: readonly Session[], id: number): { from: number; to: number } | undefined {
  const i = sessions.findIndex((s) => s.id === id);
  if (i < 0) return undefined;
  return { from: sessions[i]!.startedAt, to: sessions[i + 1]?.startedAt ?? Number.POSITIVE_INFINITY };
}
