import type { Redis } from 'ioredis';
import type { Logger } from '../lib/logger.js';
import { INTENT_STATES, isTerminal } from '../engine/states.js';
import { isLiveOrder } from '../engine/keeperPorts.js';
import { intentKeys } from './intentLayout.js';
import { IntentStore } from './intents.js';
import { KeeperStore, keeperKeys, readVenueOrders } from './keeperStore.js';
import { clearNamespace } from './redis.js';
import { sessionKeys } from './sessions.js';
import { globEscape } from './scan.js';

/**
 * A paper keeper's start on a prefix that holds an earlier paper session. Each paper start runs a new in-process
 * simulator (a new chain) and a new paper wallet, so only the earlier session's history still means something: the
 * ledger of its intents (what was decided and what landed, with signatures: `intents` and `trades` list them) and
 * the realised P&L of each strategy. Everything bound to the old chain and wallet is closed or dropped:
 *   - intents still in flight become `expired` (PAPER_SESSION_ENDED): they can never land now, and must not be
 *     executed by the new wallet;
 *   - orders the old session left resting on the old venue are marked `expired` in the ledger, so the venue
 *     reconciliation does not look for them on the new one;
 *   - each strategy's P&L book keeps its realised P&L, volume and fills, and forgets its holdings (the old wallet's);
 *   - the rest goes: queues and schedules, snapshots and price history, strategy state and decisions, the keeper
 *     jobs' state, the risk gate's day counters and value marks (they measure a wallet), heartbeats and meta.
 * The kill switch is kept: an operator's stop holds across restarts until released. The sessions are kept (each
 * trade names its session by them; src/store/sessions.ts), and the new start begins the next one. `--fresh` instead clears the
 * whole prefix, as every paper start did before.
 */
export interface PaperSessionRollover {
  /** Intents of the earlier session that were still in flight, now expired. */
  expired: number;
  /** Landed orders of the earlier session marked ended (their venue is gone). */
  ordersEnded: number;
  /** Intent records kept as history. */
  keptIntents: number;
  /** Keys removed. */
  removed: number;
}

/** The error an intent of an ended paper session is expired with. */
export const PAPER_SESSION_ENDED = 'PAPER_SESSION_ENDED';

/** Closes the earlier paper session under `prefix` and keeps its history (see the comment above). */
export async function rollOverPaperSession(redis: Redis, prefix: string, now: number): Promise<PaperSessionRollover> {
  const intents = new IntentStore(redis, prefix);
  let expired = 0;
  for (const state of INTENT_STATES.filter((s) => !isTerminal(s))) {
    for (const id of await intents.idsIn(state)) {
      const moved = await intents.move(id, null, 'expired', { error: { code: PAPER_SESSION_ENDED, message: 'its paper session ended before it landed: a new paper start runs a new simulator and wallet' } }, now);
      if (moved.ok) expired += 1;
    }
  }
  const landed = (await intents.read(await intents.idsIn('landed'))).records;
  const venue = await readVenueOrders(redis, prefix, landed.map((r) => r.id));
  const keeper = new KeeperStore(redis, prefix, intents);
  const product = { 'trigger.create': 'trigger', 'recurring.create': 'recurring', 'prediction.buy': 'prediction', 'prediction.sell': 'prediction', 'prediction.closePosition': 'prediction' } as const;
  let ordersEnded = 0;
  for (const r of landed) {
    const p = product[r.kind as keyof typeof product] as (typeof product)[keyof typeof product] | undefined;
    if (!p) continue;
    const v = venue.get(r.id);
    if (v && v.status !== null && !isLiveOrder(v.status)) continue;
    const text = (x: unknown) => (typeof x === 'string' && x !== '' ? x : null);
    await keeper.setVenueOrder(r.id, { product: p, order: v?.order ?? text(r.quote?.order), position: v?.position ?? text(r.quote?.position), status: 'expired', checkedAt: now, changedAt: now });
    ordersEnded += 1;
  }
  const keys = intentKeys(prefix);
  const keep = (k: string) =>
    k.startsWith(keys.record('')) ||
    k === keys.index ||
    k.startsWith(`${prefix}:intents:state:`) ||
    k.startsWith(`${prefix}:pnl:`) ||
    k === `${prefix}:killswitch` ||
    k === sessionKeys(prefix).starts ||
    k === sessionKeys(prefix).seq ||
    k === keeperKeys(prefix).claims;
  let removed = 0;
  let cursor = '0';
  do {
    const [next, found] = await redis.scan(cursor, 'MATCH', `${globEscape(prefix)}:*`, 'COUNT', 1000);
    cursor = next;
    const drop = found.filter((k) => !keep(k));
    if (drop.length > 0) removed += await redis.unlink(...drop);
    for (const k of found.filter((x) => x.startsWith(`${prefix}:pnl:`))) {
      const fields = (await redis.hkeys(k)).filter((f) => f.startsWith('qty:') || f.startsWith('cost:'));
      if (fields.length > 0) await redis.hdel(k, ...fields);
    }
  } while (cursor !== '0');
  return { expired, ordersEnded, keptIntents: await redis.zcard(keys.index), removed };
}

/**
 * What a keeper's start does with the records already under its prefix: a `fresh` paper session (`run --fresh`)
 * clears them all; a `new` paper session (a paper start without --fresh) rolls the earlier one over, keeping its
 * history (rollOverPaperSession); anything else (a live keeper, a paper keeper on a venue that outlives it) keeps
 * them as they are. Says what it removed or kept.
 */
export async function beginPaperSession(redis: Redis, prefix: string, session: 'fresh' | 'new' | undefined, logger: Logger, now: number): Promise<void> {
  if (session === 'fresh') {
    const removed = await clearNamespace(redis, prefix);
    if (removed > 0) logger.info({ prefix, removed }, 'fresh paper session: cleared the records of the previous one');
  } else if (session === 'new') {
    const r = await rollOverPaperSession(redis, prefix, now);
    if (r.keptIntents > 0) logger.info({ prefix, ...r }, 'new paper session: the earlier sessions\' intents and realised P&L are kept (run with --fresh to clear them); their unfinished intents expired');
  }
}
