import type { Redis } from 'ioredis';
import { z } from 'zod';
import { utcDay } from './engineStore.js';
import { intentKeys } from './intentLayout.js';
import { IntentStore, type IntentRecord } from './intents.js';
import { readVenueOrders } from './keeperStore.js';
import type { VenueOrderRecord } from '../engine/keeperPorts.js';
import { knownByMint, USDC_MINT } from '../lib/mints.js';
import { evalScript } from './scripts.js';
import { readSessions, sessionAt } from './sessions.js';

/**
 * The one definition of a trade, used by `trades`, the console and notification summaries, status, the dashboard and
 * the metrics: a landing that moved tokens for the wallet. A swap when it lands; a limit, recurring or prediction
 * order when the venue filled it (placing one is not a trade); a prediction claim; a Lend Earn deposit, withdrawal,
 * mint or redeem. Cancels, sends and claw-backs are not trades. Nothing here is stored apart from the ledger: a trade
 * is a view of an intent record (and of what the venue reconciliation wrote on it), so `trades` always agrees with
 * `intents`. Each trade names its session (src/store/sessions.ts): the keeper run it happened in.
 */

/** The kinds of trade: direct ones (the intent's own kind) and orders the venue filled later. */
export type TradeKind = 'swap' | 'trigger.fill' | 'recurring.fill' | 'prediction.fill' | 'prediction.sell' | 'prediction.claim' | 'lend.deposit' | 'lend.withdraw' | 'lend.mint' | 'lend.redeem';

/** One side of a trade, in base units. `mint` is null for what is not a token (prediction contracts). */
export interface TradeLeg {
  mint: string | null;
  /** Base units (micro-contracts for prediction contracts); null when the ledger does not record it. */
  amount: bigint | null;
  /** Decimals of `amount`; null when neither the known mints nor the snapshots know the mint. */
  decimals: number | null;
  /** What the leg is when it is not a token ("YES KXSOL5M-4032-UP"). */
  label?: string;
}

/** A settled trade or claim. */
export interface Trade {
  /** The intent id. */
  intent: string;
  /** The strategy instance id (`_keeper` for the keeper's claims). */
  strategy: string;
  kind: TradeKind;
  /** The transaction that made it (for an order the venue filled: the one that placed the order). */
  signature: string | null;
  /** Unix ms: when it landed, or when the venue reconciliation saw the order filled. */
  at: number;
  in: TradeLeg | null;
  out: TradeLeg | null;
  /** The fee the transaction paid, lamports; null when not recorded. */
  feeLamports: bigint | null;
  /** Prediction fills: what the contracts cost in all, micro-USD (the venue's quote), for the price. */
  costMicroUsd?: bigint;
  /** The session it happened in (the keeper run whose time holds `at`); null before any session was recorded. */
  session: number | null;
}

/** Decimals of a mint the trades read cannot find elsewhere (from the snapshots). */
export type DecimalsOf = (mint: string) => number | undefined;

/** The field of an intent record where the landing's transaction fee is noted (see `noteTradeFee`). */
const FEE_FIELD = 'feeLamports';

// Writes the fee only onto a record that exists. KEYS[1] the intent hash; ARGV[1] field, ARGV[2] lamports.
const NOTE_FEE_LUA = `
if redis.call('EXISTS', KEYS[1]) == 0 then return 0 end
redis.call('HSET', KEYS[1], ARGV[1], ARGV[2])
return 1
`;

/**
 * Notes on a landed intent's record the fee its transaction paid (lamports), so that `trades` shows it for as long
 * as the record is kept (the risk gate's per-day fee records expire after two days).
 */
export async function noteTradeFee(redis: Redis, prefix: string, intentId: string, lamports: bigint): Promise<void> {
  await evalScript(redis, NOTE_FEE_LUA, 1, intentKeys(prefix).record(intentId), FEE_FIELD, lamports.toString());
}

/**
 * Every settled trade and claim of a deployment at or after `since` (unix ms), oldest first: landed swaps, lend
 * moves and claims, and landed orders (limit, recurring, prediction) the venue reconciliation has seen filled.
 * Corrupt records are left out (and named by `intents`).
 */
export async function readTrades(redis: Redis, prefix: string, o: { since?: number; until?: number; session?: number; decimalsOf?: DecimalsOf } = {}): Promise<Trade[]> {
  const store = new IntentStore(redis, prefix);
  const { records } = await store.read(await store.idsIn('landed'));
  const [venue, fees, sessions] = await Promise.all([readVenueOrders(redis, prefix, records.map((r) => r.id)), readFees(redis, prefix, records), readSessions(redis, prefix)]);
  const decimalsOf = (mint: string): number | null => knownByMint(mint)?.decimals ?? o.decimalsOf?.(mint) ?? null;
  const trades: Trade[] = [];
  for (const r of records) {
    const t = tradeOf(r, venue.get(r.id), decimalsOf);
    if (!t) continue;
    t.feeLamports = fees.get(r.id) ?? null;
    t.session = sessionAt(sessions, t.at)?.id ?? null;
    if (o.session !== undefined && t.session !== o.session) continue;
    if ((o.since === undefined || t.at >= o.since) && (o.until === undefined || t.at < o.until)) trades.push(t);
  }
  return trades.sort((a, b) => a.at - b.at || (a.intent < b.intent ? -1 : 1));
}

/** The fee of each record: noted on the record, else in the risk gate's fee records of its landing day (or the next). */
async function readFees(redis: Redis, prefix: string, records: readonly IntentRecord[]): Promise<Map<string, bigint>> {
  const out = new Map<string, bigint>();
  if (records.length === 0) return out;
  const pipe = redis.pipeline();
  for (const r of records) {
    pipe.hget(intentKeys(prefix).record(r.id), FEE_FIELD);
    pipe.hget(`${prefix}:risk:feeIds:${utcDay(r.updatedAt)}`, r.id);
    pipe.hget(`${prefix}:risk:feeIds:${utcDay(r.updatedAt + 86_400_000)}`, r.id);
  }
  const replies = (await pipe.exec()) ?? [];
  records.forEach((r, i) => {
    const found = [0, 1, 2].map((k) => replies[i * 3 + k]?.[1]).find((v): v is string => typeof v === 'string' && /^\d+$/.test(v));
    if (found !== undefined) out.set(r.id, BigInt(found));
  });
  return out;
}

/** The trade a landed record stands for, or undefined when it moved no money (yet): an order still resting, a cancel. */
export function tradeOf(r: IntentRecord, venue: VenueOrderRecord | undefined, decimalsOf: (mint: string) => number | null): Trade | undefined {
  if (r.state !== 'landed' || (r.result && 'alreadyDone' in r.result)) return undefined;
  const leg = (mint: string, amount: bigint | undefined): TradeLeg | null => (amount === undefined ? null : { mint, amount, decimals: decimalsOf(mint) });
  const base = { intent: r.id, strategy: r.instance, signature: r.signature ?? r.signatures.at(-1) ?? null, at: r.updatedAt, feeLamports: null, session: null };
  const filled = venue?.status === 'filled';
  const filledAt = venue?.changedAt ?? r.updatedAt;
  const changes = tokenChanges(r.quote);
  const i = r.intent;
  switch (i.kind) {
    case 'swap': {
      const res = r.result ?? {};
      const q = r.quote ?? {};
      const exactOut = i.swapMode === 'ExactOut';
      const inAmount = big(res.inAmount) ?? big(q.inAmount) ?? (exactOut ? undefined : i.amount);
      const outAmount = big(res.outAmount) ?? big(q.outAmount) ?? (exactOut ? i.amount : undefined);
      return { ...base, kind: 'swap', in: leg(i.inputMint, inAmount), out: leg(i.outputMint, outAmount) };
    }
    case 'trigger.create':
      // The venue fills a limit order at its price or better: the ledger knows the order's terms, not the fill's.
      return filled ? { ...base, kind: 'trigger.fill', at: filledAt, in: leg(i.inputMint, i.makingAmount), out: leg(i.outputMint, i.takingAmount) } : undefined;
    case 'recurring.create':
      return filled ? { ...base, kind: 'recurring.fill', at: filledAt, in: leg(i.inputMint, i.inAmount), out: { mint: i.outputMint, amount: null, decimals: decimalsOf(i.outputMint) } } : undefined;
    case 'prediction.buy': {
      if (!filled) return undefined;
      const contracts = big(r.quote?.contractsMicro);
      const cost = big(r.quote?.orderCostMicroUsd);
      const label = `${i.side.toUpperCase()} ${i.marketId}`;
      return { ...base, kind: 'prediction.fill', at: filledAt, in: leg(i.depositMint ?? USDC_MINT, i.depositAmount), out: contracts === undefined ? null : { mint: null, amount: contracts, decimals: 6, label }, ...(cost !== undefined ? { costMicroUsd: cost } : {}) };
    }
    case 'prediction.sell':
    case 'prediction.closePosition': {
      if (!filled) return undefined;
      const contracts = i.kind === 'prediction.sell' ? i.contractsMicro : big(r.quote?.contractsMicro);
      const received = changes.find((c) => c.delta > 0n);
      return { ...base, kind: 'prediction.sell', at: filledAt, in: contracts === undefined ? null : { mint: null, amount: contracts, decimals: 6, label: 'contracts' }, out: received ? leg(received.mint, received.delta) : null };
    }
    case 'prediction.claim': {
      const contracts = big(r.quote?.contractsMicro);
      const paid = changes.find((c) => c.delta > 0n);
      const payout = big(r.quote?.payoutMicroUsd);
      return {
        ...base,
        kind: 'prediction.claim',
        in: contracts === undefined ? null : { mint: null, amount: contracts, decimals: 6, label: 'contracts' },
        out: paid ? leg(paid.mint, paid.delta) : payout !== undefined ? leg(USDC_MINT, payout) : null,
      };
    }
    case 'lend.deposit':
    case 'lend.withdraw':
    case 'lend.mint':
    case 'lend.redeem': {
      // The jlToken side is read from the changes simulated before signing; a jlToken has its asset's decimals.
      const shareLeg = (sign: 1n | -1n): TradeLeg | null => {
        const c = changes.find((x) => x.mint !== i.asset && x.delta * sign > 0n);
        return c ? { mint: c.mint, amount: c.delta * sign, decimals: decimalsOf(c.mint) ?? decimalsOf(i.asset) } : null;
      };
      const assetMoved = (sign: 1n | -1n): bigint | undefined => {
        const c = changes.find((x) => x.mint === i.asset && x.delta * sign > 0n);
        return c ? c.delta * sign : undefined;
      };
      if (i.kind === 'lend.deposit') return { ...base, kind: i.kind, in: leg(i.asset, i.amount), out: shareLeg(1n) };
      if (i.kind === 'lend.withdraw') return { ...base, kind: i.kind, in: shareLeg(-1n), out: leg(i.asset, i.amount) };
      if (i.kind === 'lend.mint') return { ...base, kind: i.kind, in: leg(i.asset, assetMoved(-1n) ?? i.maxAmount), out: shareLeg(1n) ?? { mint: null, amount: i.shares, decimals: decimalsOf(i.asset), label: 'shares' } };
      return { ...base, kind: i.kind, in: shareLeg(-1n) ?? { mint: null, amount: i.shares, decimals: decimalsOf(i.asset), label: 'shares' }, out: leg(i.asset, assetMoved(1n)) };
    }
    default:
      // Cancels, sends and claw-backs move no money in a trade: `intents` and `send list` show them.
      return undefined;
  }
}

/**
 * The USD price of a trade as a decimal string: USD per unit of the leg that is not a USD stablecoin when the other
 * one is (so a SOL/USDC swap reads as SOL's price whichever way it went), USD per contract for prediction fills and
 * claims; null when neither leg is in USD or an amount is unknown.
 */
export function tradePriceUsd(t: Trade): string | null {
  const usd = (l: TradeLeg | null) => l?.mint != null && knownByMint(l.mint)?.category === 'stable';
  const ratio = (num: TradeLeg, den: TradeLeg) => (num.decimals === null || den.decimals === null || num.amount === null || den.amount === null ? null : decimalRatio(num.amount, num.decimals, den.amount, den.decimals));
  if (t.kind === 'prediction.fill' && t.out?.amount != null && t.costMicroUsd !== undefined) return decimalRatio(t.costMicroUsd, 6, t.out.amount, t.out.decimals ?? 6);
  if (!t.in || !t.out) return null;
  if (t.out.mint === null && usd(t.in)) return ratio(t.in, t.out);
  if (t.in.mint === null && usd(t.out)) return ratio(t.out, t.in);
  if (usd(t.out) && !usd(t.in)) return ratio(t.out, t.in);
  if (usd(t.in) && !usd(t.out)) return ratio(t.in, t.out);
  if (usd(t.in) && usd(t.out)) return ratio(t.in, t.out);
  return null;
}

/** Whether a trade is a claim (the summary counts claims apart, within its trades). */
export function isClaim(t: Pick<Trade, 'kind'>): boolean {
  return t.kind === 'prediction.claim';
}

/**
 * A trade's value in USD: the amount of its USD-stablecoin leg when it has one, else its token legs at `usdPerUnit`
 * (the feed's price per whole token: the paid leg first); undefined when neither can be valued.
 */
export function tradeUsd(t: Trade, usdPerUnit: (mint: string) => number | undefined): number | undefined {
  const worth = (l: TradeLeg | null): number | undefined => {
    if (l?.mint == null || l.amount === null || l.decimals === null) return undefined;
    const price = knownByMint(l.mint)?.category === 'stable' ? 1 : usdPerUnit(l.mint);
    return price === undefined ? undefined : (Number(l.amount) / 10 ** l.decimals) * price;
  };
  const stable = [t.in, t.out].find((l) => l?.mint != null && knownByMint(l.mint)?.category === 'stable');
  return worth(stable ?? null) ?? worth(t.in) ?? worth(t.out);
}

/** What a list of trades adds up to: how many, how many of them are claims, and their USD volume (see tradeUsd). */
export function tallyTrades(trades: readonly Trade[], usdPerUnit: (mint: string) => number | undefined): { trades: number; claims: number; volumeUsd: number } {
  let volumeUsd = 0;
  for (const t of trades) volumeUsd += isClaim(t) ? 0 : (tradeUsd(t, usdPerUnit) ?? 0);
  return { trades: trades.length, claims: trades.filter(isClaim).length, volumeUsd };
}

/** (num / 10^numDecimals) / (den / 10^denDecimals) to `places` decimals (rounded down), trailing zeros trimmed. */
export function decimalRatio(num: bigint, numDecimals: number, den: bigint, denDecimals: number, places = 6): string | null {
  if (den <= 0n || num < 0n) return null;
  const scaled = (num * 10n ** BigInt(denDecimals + places)) / (den * 10n ** BigInt(numDecimals));
  const whole = scaled / 10n ** BigInt(places);
  const frac = (scaled % 10n ** BigInt(places)).toString().padStart(places, '0').replace(/0+$/, '');
  return frac ? `${whole}.${frac}` : whole.toString();
}

/** The token deltas of a quote's `expectedChanges` (what the pre-sign simulation showed). */
function tokenChanges(quote: Record<string, unknown> | null): Array<{ mint: string; delta: bigint }> {
  const parsed = changesSchema.safeParse(quote?.expectedChanges);
  if (!parsed.success) return [];
  return parsed.data.tokens.flatMap((t) => {
    const delta = big(t.delta, true);
    return delta === undefined ? [] : [{ mint: t.mint, delta }];
  });
}

const changesSchema = z.object({ tokens: z.array(z.object({ mint: z.string(), delta: z.unknown() })) });

function big(v: unknown, signed = false): bigint | undefined {
  if (typeof v === 'bigint') return v;
  if (typeof v === 'string' && (signed ? /^-?\d+$/ : /^\d+$/).test(v)) return BigInt(v);
  if (typeof v === 'number' && Number.isSafeInteger(v) && (signed || v >= 0)) return BigInt(v);
  return undefined;
}
