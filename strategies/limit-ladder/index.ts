// limit-ladder: a grid of trigger (limit) orders around the price of a pair. Buys rest at levels below the centre and
// sells at levels above it, one level (the gap) left empty between them. A filled buy moves the gap down to its
// level, so the level it left is re-armed as a sell one spacing above the fill (and a filled sell re-arms a buy one
// spacing below): every round trip through two neighbouring levels earns the spacing. When the price leaves the
// range, every ladder order is cancelled and the ladder re-centres on the price.
import { defineStrategy, type IntentInput, type PendingIntentView } from '../../src/sdk/index.js';
import { SOL_MINT } from '../../src/sdk/symbols.js';
import { ladderStateSchema, levelKey, levelPrice, movedGap, nearestLevel, observe, persisted, takingFor, type LadderState, type Level } from './ladder.js';
import { limitLadderParams, rangeOf, type LimitLadderParams } from './params.js';

export { limitLadderParams, type LimitLadderParams } from './params.js';
export type { LadderState } from './ladder.js';

/** Lamports a ladder selling SOL never puts into orders (0.02 SOL for fees and rent). */
export const LADDER_SOL_RESERVE_LAMPORTS = 20_000_000n;
/** The Trigger API's smallest order, USD of the input ("making amount must be at least 5 USD"). */
export const TRIGGER_MIN_ORDER_USD = 5;

/** What the instance's own pending intents already spend of `mint` (not yet visible in the wallet feed). */
function pendingSpend(pending: readonly PendingIntentView[], mint: string): bigint {
  let sum = 0n;
  for (const { intent } of pending) {
    if (intent.kind === 'trigger.create' && intent.inputMint === mint) sum += intent.makingAmount;
    else if (intent.kind === 'swap' && intent.inputMint === mint && intent.swapMode !== 'ExactOut') sum += intent.amount;
  }
  return sum;
}

const fmt = (price: number): string => price.toPrecision(6);

/** Places a ladder of limit orders around the price, re-arms filled levels and re-centres when the price leaves the range. */
export const limitLadder = defineStrategy<typeof limitLadderParams, Record<string, unknown>>({
  name: 'limit-ladder',
  version: '1.0.0',
  description: 'a grid of trigger orders around the price: buys below, sells above; filled levels re-arm one spacing away; re-centres when the price leaves the range',
  params: limitLadderParams,
  watches: (p) => ({ mints: [p.base, p.quote] }),
  emits: () => [{ kind: 'trigger.create' }, { kind: 'trigger.cancel' }],
  decide: (ctx) => {
    const p = ctx.params;
    // Parse the state rather than trust it; a corrupt one throws (a fresh ladder would place every order again).
    let s: LadderState = ladderStateSchema.parse(ctx.state);
    const basePrice = ctx.price(p.base);
    const quotePrice = ctx.price(p.quote);
    if (!basePrice || !quotePrice || !(basePrice.usd > 0) || !(quotePrice.usd > 0)) {
      ctx.log.debug('skipping: no price for base or quote');
      return { intents: [], state: persisted(s) };
    }
    const price = basePrice.usd / quotePrice.usd;
    const pair = ctx.openOrders.trigger.filter((o) => (o.inputMint === p.base && o.outputMint === p.quote) || (o.inputMint === p.quote && o.outputMint === p.base));
    const pending = ctx.pendingIntents;
    const intents: IntentInput[] = [];

    const centre = s.centre;
    if (centre !== undefined) {
      const seen = observe(s.levels, { open: pair, pending, price, centre, spacingPct: p.spacingPct, base: p.base, quote: p.quote });
      s = { ...s, levels: seen.kept, fills: s.fills + seen.filled.length };
      if (seen.filled.length > 0) {
        const gap = s.recentring ? s.gap : movedGap(s.gap, seen.filled, nearestLevel(centre, price, p.spacingPct));
        ctx.log.info('ladder orders filled', { levels: seen.filled.map((l) => `${l.side}@${l.k}`), gapFrom: s.gap, gapTo: gap });
        s.gap = gap;
      }
      if (!s.recentring && Math.abs(price / centre - 1) * 100 > rangeOf(p)) {
        ctx.log.info('price left the range: cancelling the ladder to re-centre', { price: fmt(price), centre: fmt(centre), rangePct: rangeOf(p) });
        s.recentring = true;
      }
      if (s.recentring) {
        s.levels = s.levels.map((level) => {
          const cancel = cancelOf(level, pair, pending);
          if (!cancel || intents.length >= p.maxOrdersPerRun) return level;
          intents.push(cancel);
          return { ...level, cancelling: true };
        });
        // Orders still resting, being placed or being cancelled: re-centre once none is left.
        if (s.levels.length > 0) return { intents, state: persisted(s) };
      }
    }
    if (s.centre === undefined || s.recentring) {
      s = { ...s, centre: price, gap: 0, recentring: false, levels: [] };
      ctx.log.info('ladder centred', { centre: fmt(price), levelsPerSide: p.levelsPerSide, spacingPct: p.spacingPct });
    }
    const placed = place(p, s, { price, basePrice: basePrice.usd, quotePrice: quotePrice.usd, decimals: { base: basePrice.decimals, quote: quotePrice.decimals }, now: ctx.now }, {
      base: available(ctx.wallet.balance(p.base), pendingSpend(pending, p.base), p.base),
      quote: available(ctx.wallet.balance(p.quote), pendingSpend(pending, p.quote), p.quote),
    }, p.maxOrdersPerRun - intents.length, ctx.log);
    return { intents: [...intents, ...placed.intents], state: persisted({ ...s, levels: [...s.levels, ...placed.levels] }) };
  },
});

/** What may go into new orders of `mint`: the balance less what pending intents spend, and the SOL reserve. */
function available(balance: bigint, spending: bigint, mint: string): bigint {
  const free = balance - spending - (mint === SOL_MINT ? LADDER_SOL_RESERVE_LAMPORTS : 0n);
  return free > 0n ? free : 0n;
}

/** The cancel of a level's resting order, unless it is not resting (yet) or a cancel of it is already pending. */
function cancelOf(level: Level, pair: ReadonlyArray<{ order: string }>, pending: readonly PendingIntentView[]): IntentInput | undefined {
  const order = level.order;
  if (order === undefined || !pair.some((o) => o.order === order)) return undefined;
  if (pending.some(({ intent }) => intent.kind === 'trigger.cancel' && intent.order === order)) return undefined;
  return { kind: 'trigger.cancel', order, reason: `re-centring: cancel the ${level.side} at level ${level.k}` };
}

/**
 * Orders for the empty levels (buys below the gap, sells above it), nearest the gap first, as far as the funds, the
 * venue's minimum order and `room` allow.
 */
function place(
  p: LimitLadderParams,
  s: LadderState,
  m: { price: number; basePrice: number; quotePrice: number; decimals: { base: number; quote: number }; now: number },
  funds: { base: bigint; quote: bigint },
  room: number,
  log: { debug(message: string, fields?: Record<string, unknown>): void; warn(message: string, fields?: Record<string, unknown>): void },
): { intents: IntentInput[]; levels: Level[] } {
  const centre = s.centre ?? m.price;
  const taken = new Set(s.levels.map((l) => l.k));
  const empty: number[] = [];
  for (let k = -p.levelsPerSide; k <= p.levelsPerSide; k += 1) if (k !== s.gap && !taken.has(k)) empty.push(k);
  empty.sort((a, b) => Math.abs(a - s.gap) - Math.abs(b - s.gap) || a - b);
  const left = { ...funds };
  const intents: IntentInput[] = [];
  const levels: Level[] = [];
  for (const k of empty) {
    if (intents.length >= room) break;
    const side = k < s.gap ? 'buy' : 'sell';
    const [inputMint, outputMint, making, spend] = side === 'buy' ? [p.quote, p.base, p.buyAmount, 'quote' as const] : [p.base, p.quote, p.sellAmount, 'base' as const];
    const at = levelPrice(centre, k, p.spacingPct);
    const taking = takingFor(side, making, at, m.decimals);
    const usd = (Number(making) / 10 ** m.decimals[spend]) * (spend === 'base' ? m.basePrice : m.quotePrice);
    if (usd < TRIGGER_MIN_ORDER_USD) {
      log.warn(`a ${side} order is worth less than the venue's $${TRIGGER_MIN_ORDER_USD} minimum: raise ${side}Amount`, { level: k, usd: Number(usd.toFixed(2)) });
      continue;
    }
    if (taking <= 0n) continue;
    if (making > left[spend]) {
      log.debug(`not enough ${spend} for the ${side} at level ${k}`, { needed: making.toString(), available: left[spend].toString() });
      continue;
    }
    left[spend] -= making;
    intents.push({ kind: 'trigger.create', inputMint, outputMint, makingAmount: making, takingAmount: taking, key: levelKey(k), reason: `${side} at level ${k} (${fmt(at)}), centre ${fmt(centre)}` });
    levels.push({ k, side, making, taking, placedAt: m.now });
  }
  return { intents, levels };
}
