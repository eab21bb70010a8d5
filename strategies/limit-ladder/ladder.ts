// The ladder's bookkeeping: where each level's order is (asked for, resting, gone), and the amounts of a level.
import { z } from 'zod';
import type { PendingIntentView, TriggerOrderView } from '../../src/sdk/index.js';

/** An amount kept in the state: a bigint, or its decimal text (how older states or hand edits may hold it). */
const amountInState = z.union([z.bigint(), z.string().regex(/^\d+$/)]).transform((v) => BigInt(v));

const levelSchema = z.object({
  /** Level index: 0 is the centre, -1 the first level below it, 1 the first above. */
  k: z.number().int(),
  side: z.enum(['buy', 'sell']),
  /** What the order spends (quote for a buy, base for a sell) and the least it takes, base units. */
  making: amountInState,
  taking: amountInState,
  /** The order account, once the wallet feed showed the order resting. */
  order: z.string().optional(),
  /** A cancel was asked for (re-centring): the order's disappearance is not a fill. */
  cancelling: z.boolean().optional(),
  /** When the order was asked for, unix ms. */
  placedAt: z.number(),
});

/** What limit-ladder persists between runs. */
export const ladderStateSchema = z.object({
  /** The price the levels are measured from, quote per base token; absent before the first run. */
  centre: z.number().positive().optional(),
  /** The level left empty: buys rest below it, sells above it. Moves with fills. */
  gap: z.number().int().default(0),
  /** Every order is being cancelled; the ladder re-centres once none is left. */
  recentring: z.boolean().default(false),
  levels: z.array(levelSchema).default([]),
  /** Orders seen filled since the instance started. */
  fills: z.number().int().min(0).default(0),
});

/** One level's order as the state records it. */
export type Level = z.output<typeof levelSchema>;
/** The ladder's state, parsed. */
export type LadderState = z.output<typeof ladderStateSchema>;

/** The state as decide() returns it (amounts as decimal text, so the record reads the same anywhere). */
export function persisted(s: LadderState): Record<string, unknown> {
  return {
    ...(s.centre === undefined ? {} : { centre: s.centre }),
    gap: s.gap,
    recentring: s.recentring,
    fills: s.fills,
    levels: s.levels.map((l) => ({ ...l, making: l.making.toString(), taking: l.taking.toString() })),
  };
}

/** The intent key of a level's order: one per level and window. */
export const levelKey = (k: number): string => `lvl${k}`;

/** Price of level `k`, quote per base token. */
export function levelPrice(centre: number, k: number, spacingPct: number): number {
  return centre * (1 + (k * spacingPct) / 100);
}

/** The level nearest `price`. */
export function nearestLevel(centre: number, price: number, spacingPct: number): number {
  return Math.round((price / centre - 1) / (spacingPct / 100));
}

// Prices as integers with 12 decimals, so that amounts are computed in bigint.
const SCALE = 10n ** 12n;
const scaledPrice = (price: number): bigint => BigInt(Math.round(price * 1e12));
const pow10 = (n: number): bigint => 10n ** BigInt(n);

/**
 * The least a level's order takes, in base units: a buy spending `making` quote takes `making / price` base; a sell
 * spending `making` base takes `making × price` quote (rounded down: the order asks no more than the level's price).
 */
export function takingFor(side: Level['side'], making: bigint, price: number, decimals: { base: number; quote: number }): bigint {
  const p = scaledPrice(price);
  if (p <= 0n) return 0n;
  return side === 'buy'
    ? (making * pow10(decimals.base) * SCALE) / (p * pow10(decimals.quote))
    : (making * p * pow10(decimals.quote)) / (pow10(decimals.base) * SCALE);
}

/** What became of the levels since the last run. */
export interface Observed {
  /** Levels whose order rests, or is still being placed or cancelled. */
  kept: Level[];
  /** Levels whose resting order is gone without a cancel: it filled. */
  filled: Level[];
  /** Levels whose order was cancelled, or whose creation ended without an order: free to place again. */
  freed: Level[];
}

/**
 * Follows each level's order through the wallet feed: found resting (its order account recorded), still asked for
 * (a pending create with the level's key and amounts), or gone. A gone order that rested and was not cancelled
 * filled. One that was never seen resting filled if the price crossed its level since (it filled before the feed
 * saw it); otherwise its creation ended without effect, and the level is freed to be placed again.
 */
export function observe(
  levels: readonly Level[],
  seen: { open: readonly TriggerOrderView[]; pending: readonly PendingIntentView[]; price: number; centre: number; spacingPct: number; base: string; quote: string },
): Observed {
  const out: Observed = { kept: [], filled: [], freed: [] };
  const claimed = new Set<string>();
  const mintsOf = (side: Level['side']) => (side === 'buy' ? [seen.quote, seen.base] : [seen.base, seen.quote]);
  const cancelsPending = new Set(seen.pending.flatMap((p) => (p.intent.kind === 'trigger.cancel' ? [p.intent.order] : [])));
  for (const level of levels) {
    const [inputMint, outputMint] = mintsOf(level.side);
    const resting = seen.open.find((o) =>
      level.order !== undefined
        ? o.order === level.order
        : !claimed.has(o.order) && o.inputMint === inputMint && o.outputMint === outputMint && o.makingAmount === level.making && o.takingAmount === level.taking,
    );
    if (resting) {
      claimed.add(resting.order);
      out.kept.push({ ...level, order: resting.order });
      continue;
    }
    if (level.order !== undefined) {
      if (cancelsPending.has(level.order)) out.kept.push(level);
      else (level.cancelling ? out.freed : out.filled).push(level);
      continue;
    }
    const placing = seen.pending.some(
      ({ intent: i }) => i.kind === 'trigger.create' && i.key === levelKey(level.k) && i.inputMint === inputMint && i.outputMint === outputMint && i.makingAmount === level.making && i.takingAmount === level.taking,
    );
    if (placing) {
      out.kept.push(level);
      continue;
    }
    const at = levelPrice(seen.centre, level.k, seen.spacingPct);
    const crossed = level.side === 'buy' ? seen.price <= at : seen.price >= at;
    (crossed ? out.filled : out.freed).push(level);
  }
  return out;
}

/**
 * Where the empty level is after `filled`: a buy filled below it moves it down to the lowest such buy, a sell filled
 * above it moves it up to the highest such sell. When both happened between two runs (the price swung through both
 * sides), the level nearest the price within the filled span.
 */
export function movedGap(gap: number, filled: readonly Level[], nearest: number): number {
  const buys = filled.filter((l) => l.side === 'buy' && l.k < gap).map((l) => l.k);
  const sells = filled.filter((l) => l.side === 'sell' && l.k > gap).map((l) => l.k);
  const low = buys.length > 0 ? Math.min(...buys) : undefined;
  const high = sells.length > 0 ? Math.max(...sells) : undefined;
  if (low !== undefined && high !== undefined) return Math.min(high, Math.max(low, nearest));
  return low ?? high ?? gap;
}
