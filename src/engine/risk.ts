import { knownByMint, USDC_MINT, WSOL_MINT } from '../lib/mints.js';
import type { Intent } from '../sdk/intents.js';
import type { MarketView } from '../sdk/context.js';
import { killSwitchVerdict, type KillSwitchState } from './killSwitch.js';
import type { Logger } from '../lib/logger.js';
import type { MarketData, PredictionData, RiskCounters, SnapshotSource, WalletData } from './ports.js';
import { refuse, type RiskRefusal } from './riskRules.js';
import { walletValueUsd } from './walletValue.js';

/** The limits of the risk gate (config `risk`). Optional limits are off when unset. */
export interface RiskLimits {
  maxNotionalUsdPerIntent: number;
  maxDailyNotionalUsd: number;
  maxSlippageBps: number;
  minSolReserveLamports: bigint;
  refuseShieldSeverities: readonly string[];
  maxPositionUsdPerToken?: number | undefined;
  maxEventExposureUsd?: number | undefined;
  /** ms before a prediction market's close after which it takes no new buys (0: none). */
  predictionEntryCutoff?: number | undefined;
  /** Mints that alone may be bought or deposited; empty: any. */
  allowMints?: readonly string[] | undefined;
  denyMints?: readonly string[] | undefined;
  maxDailyFeeLamports?: bigint | undefined;
  maxDailyLossUsd?: number | undefined;
  maxDrawdownPct?: number | undefined;
}

/** A decision of the gate on one intent. */
export type RiskVerdict = { ok: true; notionalUsd: number } | RiskRefusal;

/** What the gate reads, once per evaluation. */
export interface RiskInputs {
  market: MarketData;
  wallet: WalletData;
  prediction: PredictionData | undefined;
  limits: RiskLimits;
  counters: RiskCounters;
  /** The instance deciding, and its own daily budget. */
  instance: { id: string; dailyBudgetUsd?: number | undefined };
  now: number;
}

/**
 * The risk gate between decide() and the ledger, opened once per evaluation: it reads the kill switch and today's
 * fees once, and first checks the wallet's value against the loss limits (a breach trips the kill switch, halting
 * everything). `check` then rules on each intent in order; what an accepted intent buys counts against the
 * position and event caps of the intents after it in the same evaluation. Limits come from the config and prices
 * and balances from the feeds: nothing from the venue's answers to the orders being judged.
 */
export async function openRiskGate(inputs: RiskInputs): Promise<RiskGate> {
  return riskGate(inputs, await readRiskState(inputs));
}

/** What the gate reads from Redis once per evaluation (or once per shard of instances). */
export interface RiskState {
  killSwitch: KillSwitchState | null;
  feesToday: bigint;
}

/** The gate of one evaluation. */
export interface RiskGate {
  check(intentId: string, intent: Intent): Promise<RiskVerdict>;
}

/** Checks the loss limits (tripping the switch if need be), then reads the switch and today's fees. */
export async function readRiskState(inputs: Pick<RiskInputs, 'market' | 'wallet' | 'prediction' | 'limits' | 'counters' | 'now'>): Promise<RiskState> {
  const { limits, counters, now } = inputs;
  const tripped = await watchLosses(inputs);
  const [killSwitch, feesToday] = await Promise.all([tripped ? Promise.resolve(tripped) : counters.killSwitch(), limits.maxDailyFeeLamports !== undefined ? counters.dailyFeeLamports(now) : Promise.resolve(0n)]);
  return { killSwitch, feesToday };
}

/** What accepted intents bought (per token and per prediction event), carried from one intent to the next. */
export interface Purchases {
  boughtUsd: Map<string, number>;
  eventUsd: Map<string, number>;
}

/** One intent before the gate, with the instance that decided it. */
export interface RiskItem {
  intentId: string;
  intent: Intent;
  instance: { id: string; dailyBudgetUsd?: number | undefined };
}

/** The gate of one evaluation over a state read once (checks one intent at a time, in order). */
export function riskGate(inputs: RiskInputs, state: RiskState, shared: Purchases = { boughtUsd: new Map(), eventUsd: new Map() }): RiskGate {
  return {
    async check(intentId, intent) {
      return (await judgeAll(inputs, state, [{ intentId, intent, instance: inputs.instance }], shared))[0]!;
    },
  };
}

/** Rules that depend on what the accepted intents bought. */
const PURCHASE_RULES = new Set(['max-position-per-token', 'max-event-exposure']);

/**
 * Rules on many intents in order (those of a whole shard), with one round trip for all their daily reservations.
 * Each intent's position and event caps count what the accepted intents before it bought, as if ruled one by one;
 * the reservations are then made in that order in one script. An intent refused there (the day's total, its
 * instance's budget) buys nothing, so the intents a cap refused are ruled again against what was accepted: a reserved
 * intent is never refused afterwards, and the caps hold over everything accepted.
 */
export async function judgeAll(inputs: Omit<RiskInputs, 'instance'>, state: RiskState, items: readonly RiskItem[], shared: Purchases = { boughtUsd: new Map(), eventUsd: new Map() }): Promise<RiskVerdict[]> {
  const { limits, counters, now } = inputs;
  const { killSwitch, feesToday } = state;
  const verdicts: RiskVerdict[] = new Array<RiskVerdict>(items.length);
  const bought = (i: number, sign: 1 | -1) => countPurchase(items[i]!.intent, sign * (verdicts[i] as { notionalUsd: number }).notionalUsd, inputs.prediction, shared.boughtUsd, shared.eventUsd);
  let open = items.map((_, i) => i);
  while (open.length > 0) {
    const reserving: number[] = [];
    for (const i of open) {
      const { intent } = items[i]!;
      verdicts[i] =
        killSwitchVerdict(killSwitch, intent) ??
        (limits.maxDailyFeeLamports !== undefined && feesToday >= limits.maxDailyFeeLamports
          ? refuse('daily-fee-budget', `${feesToday} lamports were spent on fees today, the daily budget is ${limits.maxDailyFeeLamports}`)
          : checkIntent(intent, inputs, shared.boughtUsd, shared.eventUsd));
      const v = verdicts[i];
      if (!v.ok || v.notionalUsd <= 0) continue;
      reserving.push(i);
      bought(i, 1);
    }
    const reserved = await counters.reserveNotionalMany(
      reserving.map((i) => {
        const { intentId, instance } = items[i]!;
        return { intentId, usd: (verdicts[i] as { notionalUsd: number }).notionalUsd, dailyLimit: limits.maxDailyNotionalUsd, instance: instance.id, instanceLimit: instance.dailyBudgetUsd };
      }),
      now,
    );
    let refusedAny = false;
    reserving.forEach((i, n) => {
      if (reserved[n] === 'ok') return;
      const usd = (verdicts[i] as { notionalUsd: number }).notionalUsd;
      const { instance } = items[i]!;
      bought(i, -1);
      verdicts[i] =
        reserved[n] === 'daily'
          ? refuse('max-daily-notional', `$${usd.toFixed(2)} more would pass today's limit of $${limits.maxDailyNotionalUsd}`)
          : refuse('strategy-budget', `$${usd.toFixed(2)} more would pass the daily budget of $${instance.dailyBudgetUsd} of ${instance.id}`);
      refusedAny = true;
    });
    open = refusedAny ? open.filter((i) => { const v = verdicts[i]!; return !v.ok && PURCHASE_RULES.has(v.rule); }) : [];
  }
  return verdicts;
}

/**
 * The loss limits, on the wallet's value at feed prices: its fall since the first reading of the UTC day
 * (`maxDailyLossUsd`) and from its peak (`maxDrawdownPct`). A breach engages the kill switch in halt mode with the
 * figures as its reason; the switch as it is then is returned. Run by the gate and after every wallet refresh.
 */
export async function watchLosses(inputs: Pick<RiskInputs, 'market' | 'wallet' | 'prediction' | 'limits' | 'counters' | 'now'>): Promise<KillSwitchState | undefined> {
  const { limits, counters, now } = inputs;
  if (limits.maxDailyLossUsd === undefined && limits.maxDrawdownPct === undefined) return undefined;
  const value = walletValueUsd(inputs.market, inputs.wallet, inputs.prediction);
  // A wallet holding something the feed cannot price is not valued: a gap in the feed must not trip the switch.
  if (value.unpriced.length > 0) return undefined;
  const { peakUsd, dayStartUsd } = await counters.observeValue(value.usd, now);
  const lossUsd = dayStartUsd - value.usd;
  if (limits.maxDailyLossUsd !== undefined && lossUsd >= limits.maxDailyLossUsd) {
    return counters.trip(`daily-loss: the wallet is worth $${value.usd.toFixed(2)}, $${lossUsd.toFixed(2)} below its $${dayStartUsd.toFixed(2)} at the start of the day (limit $${limits.maxDailyLossUsd})`, 'risk:daily-loss', now);
  }
  const drawdownPct = peakUsd > 0 ? ((peakUsd - value.usd) / peakUsd) * 100 : 0;
  if (limits.maxDrawdownPct !== undefined && drawdownPct >= limits.maxDrawdownPct) {
    return counters.trip(`drawdown: the wallet is worth $${value.usd.toFixed(2)}, ${drawdownPct.toFixed(1)}% below its peak of $${peakUsd.toFixed(2)} (limit ${limits.maxDrawdownPct}%)`, 'risk:drawdown', now);
  }
  return undefined;
}

/**
 * The loss limits checked on the latest snapshots (after each wallet refresh), so a falling wallet halts trading
 * even while no strategy is deciding. Logs a trip once, when this call engaged the switch.
 */
export async function watchLossesOnSnapshots(snapshots: SnapshotSource, limits: RiskLimits, counters: RiskCounters, logger: Logger, now: number): Promise<void> {
  const [market, wallet, prediction] = await Promise.all([snapshots.market(), snapshots.wallet(), snapshots.prediction()]);
  if (!market || !wallet) return;
  const state = await watchLosses({ market, wallet, prediction, limits, counters, now });
  if (state && state.at === now && state.by.startsWith('risk:')) logger.error({ rule: state.by.slice('risk:'.length), reason: state.reason }, 'a loss limit tripped the kill switch: trading is halted');
}

/** The per-intent rules that need no counter. */
function checkIntent(intent: Intent, inputs: Omit<RiskInputs, 'instance'>, boughtUsd: ReadonlyMap<string, number>, eventUsd: ReadonlyMap<string, number>): RiskVerdict {
  const { limits, market, wallet } = inputs;
  const entered = enteredMint(intent);
  if (entered) {
    if (limits.denyMints?.includes(entered)) return refuse('mint-denylist', `${nameOf(entered)} is on the deny list (risk.denyMints)`);
    if (limits.allowMints && limits.allowMints.length > 0 && !limits.allowMints.includes(entered)) return refuse('mint-allowlist', `${nameOf(entered)} is not on the allow list (risk.allowMints)`);
  }
  // An ExactOut swap's amount is its output: what it spends is that output's worth in the input, plus the slippage.
  const spend = intent.kind === 'swap' && intent.swapMode === 'ExactOut' ? exactOutSpend(intent, market, limits.maxSlippageBps) : spendOf(intent);
  if (spend === 'price-unknown') return refuse('price-unknown', 'no price for both mints of an ExactOut swap: what it spends cannot be valued');
  let notionalUsd = 0;
  if (spend) {
    const price = market.prices[spend.mint];
    if (!price) return refuse('price-unknown', `no price for ${nameOf(spend.mint)}: its USD value cannot be checked`);
    notionalUsd = (Number(spend.amount) / 10 ** price.decimals) * price.usd;
    if (notionalUsd > limits.maxNotionalUsdPerIntent) {
      return refuse('max-notional-per-order', `$${notionalUsd.toFixed(2)} is above the per-order limit of $${limits.maxNotionalUsdPerIntent}`);
    }
    const balance = spend.mint === WSOL_MINT ? wallet.lamports : (wallet.holdings.find((h) => h.mint === spend.mint)?.amount ?? 0n);
    const reserve = spend.mint === WSOL_MINT ? limits.minSolReserveLamports : 0n;
    if (balance < spend.amount + reserve) {
      if (spend.mint === WSOL_MINT && balance >= spend.amount) return refuse('min-sol-reserve', `spending ${spend.amount} lamports would leave ${balance - spend.amount}, below the reserve of ${reserve} kept for fees`);
      return refuse('balance', `the wallet holds ${balance} of ${nameOf(spend.mint)}, needs ${spend.amount}`);
    }
  }
  if (wallet.lamports < limits.minSolReserveLamports) {
    return refuse('min-sol-reserve', `the wallet has ${wallet.lamports} lamports, below the reserve of ${limits.minSolReserveLamports} kept for fees`);
  }
  if (intent.kind === 'swap' && intent.slippageBps !== undefined && intent.slippageBps > limits.maxSlippageBps) {
    return refuse('max-slippage', `slippage ${intent.slippageBps} bps is above the limit of ${limits.maxSlippageBps} bps`);
  }
  const bought = boughtMint(intent);
  if (bought) {
    const warnings = (market.tokens[bought]?.warnings ?? []).filter((w) => limits.refuseShieldSeverities.includes(w.severity));
    if (warnings.length > 0) return refuse('shield', `${nameOf(bought)} has ${warnings.map((w) => `${w.severity} ${w.type}`).join(', ')}`);
    if (limits.maxPositionUsdPerToken !== undefined && !isStable(bought)) {
      const held = heldUsd(bought, inputs);
      if (held === undefined) return refuse('price-unknown', `no price for ${nameOf(bought)}: the position it would add to cannot be valued`);
      const after = held + (boughtUsd.get(bought) ?? 0) + notionalUsd;
      if (after > limits.maxPositionUsdPerToken) {
        return refuse('max-position-per-token', `${nameOf(bought)} would be worth $${after.toFixed(2)} in the wallet, above the cap of $${limits.maxPositionUsdPerToken} per token`);
      }
    }
  }
  if (intent.kind === 'prediction.buy') {
    const market = marketOf(intent.marketId, inputs.prediction);
    const cutoff = limits.predictionEntryCutoff ?? 0;
    if (cutoff > 0) {
      if (!market) return refuse('prediction-close-cutoff', `market ${intent.marketId} is not in the prediction snapshot: its close time is unknown`);
      const closesInMs = market.closeTime !== null ? market.closeTime * 1000 - inputs.now : Infinity;
      if (closesInMs < cutoff) {
        return refuse('prediction-close-cutoff', `market ${intent.marketId} closes in ${Math.max(0, Math.round(closesInMs / 60_000))} min; no new entries within ${Math.round(cutoff / 60_000)} min of close`);
      }
    }
    if (limits.maxEventExposureUsd !== undefined) {
      if (!market?.eventId) return refuse('max-event-exposure', `market ${intent.marketId} has no known event in the prediction snapshot: its exposure cannot be summed`);
      const after = eventExposureUsd(market.eventId, inputs) + (eventUsd.get(market.eventId) ?? 0) + notionalUsd;
      if (after > limits.maxEventExposureUsd) {
        return refuse('max-event-exposure', `event ${market.eventId} would have $${after.toFixed(2)} at stake, above the cap of $${limits.maxEventExposureUsd}`);
      }
    }
  }
  return { ok: true, notionalUsd };
}

/** Counts what an accepted intent adds to a token position or a prediction event, for the intents after it. */
function countPurchase(intent: Intent, usd: number, prediction: PredictionData | undefined, boughtUsd: Map<string, number>, eventUsd: Map<string, number>): void {
  const bought = boughtMint(intent);
  if (bought) boughtUsd.set(bought, (boughtUsd.get(bought) ?? 0) + usd);
  if (intent.kind === 'prediction.buy') {
    const eventId = marketOf(intent.marketId, prediction)?.eventId;
    if (eventId) eventUsd.set(eventId, (eventUsd.get(eventId) ?? 0) + usd);
  }
}

/** USD of a token in the wallet and in its lend deposits (at the chain's exchange price); undefined without a price. */
function heldUsd(mint: string, inputs: Omit<RiskInputs, 'instance'>): number | undefined {
  const price = inputs.market.prices[mint];
  if (!price || !(price.usd > 0)) return undefined;
  const { wallet } = inputs;
  let amount = mint === WSOL_MINT ? wallet.lamports : 0n;
  for (const h of wallet.holdings) if (h.mint === mint) amount += h.amount;
  for (const s of wallet.shareTokens ?? []) if (s.asset === mint) amount += s.underlyingAssets;
  return (Number(amount) / 10 ** price.decimals) * price.usd;
}

/** USD at stake in one event: the cost of the contracts held in its markets (what a loss would take). */
function eventExposureUsd(eventId: string, inputs: Omit<RiskInputs, 'instance'>): number {
  const markets = new Map(inputs.prediction?.events.find((e) => e.eventId === eventId)?.markets.map((m) => [m.marketId, m]) ?? []);
  let micro = 0n;
  for (const p of inputs.wallet.prediction) {
    const m = markets.get(p.marketId);
    if (!m || p.claimed || m.result !== null) continue;
    micro += (p.contractsMicro * (p.avgPriceMicroUsd ?? 1_000_000n)) / 1_000_000n;
  }
  return Number(micro) / 1e6;
}

function marketOf(marketId: string, prediction: PredictionData | undefined): MarketView | undefined {
  for (const e of prediction?.events ?? []) {
    const m = e.markets.find((x) => x.marketId === marketId);
    if (m) return m;
  }
  return undefined;
}

/**
 * What an ExactOut swap spends at most: its exact output's worth in the input at the feed's prices, plus its slippage
 * bound (the intent's, at most the config's), rounded up; 'price-unknown' when the feed lacks either price.
 */
export function exactOutSpend(intent: Extract<Intent, { kind: 'swap' }>, market: MarketData, maxSlippageBps: number): { mint: string; amount: bigint } | 'price-unknown' {
  const pin = market.prices[intent.inputMint];
  const pout = market.prices[intent.outputMint];
  if (!pin || !pout || !(pin.usd > 0) || !(pout.usd > 0)) return 'price-unknown';
  const slippage = Math.min(intent.slippageBps ?? maxSlippageBps, maxSlippageBps);
  const inUnits = (Number(intent.amount) / 10 ** pout.decimals) * (pout.usd / pin.usd) * (1 + slippage / 10_000);
  return { mint: intent.inputMint, amount: BigInt(Math.ceil(inUnits * 10 ** pin.decimals)) };
}

/** What an intent spends from the wallet, if anything (an ExactOut swap: see exactOutSpend). */
export function spendOf(intent: Intent): { mint: string; amount: bigint } | undefined {
  switch (intent.kind) {
    case 'swap':
      return { mint: intent.inputMint, amount: intent.amount };
    case 'trigger.create':
      return { mint: intent.inputMint, amount: intent.makingAmount };
    case 'recurring.create':
      return { mint: intent.inputMint, amount: intent.inAmount };
    case 'lend.deposit':
      return { mint: intent.asset, amount: intent.amount };
    case 'lend.mint':
      return { mint: intent.asset, amount: intent.maxAmount };
    case 'prediction.buy':
      return { mint: intent.depositMint ?? USDC_MINT, amount: intent.depositAmount };
    case 'send':
      return { mint: intent.mint, amount: intent.amount };
    default:
      return undefined;
  }
}

/** The token an intent buys, if any. */
function boughtMint(intent: Intent): string | undefined {
  if (intent.kind === 'swap' || intent.kind === 'trigger.create' || intent.kind === 'recurring.create') return intent.outputMint;
  return undefined;
}

/** The token an intent takes a position in (bought or deposited): what the allow and deny lists judge. */
function enteredMint(intent: Intent): string | undefined {
  return intent.kind === 'lend.deposit' || intent.kind === 'lend.mint' ? intent.asset : boughtMint(intent);
}

function isStable(mint: string): boolean {
  return knownByMint(mint)?.category === 'stable';
}

function nameOf(mint: string): string {
  const sym = knownByMint(mint)?.symbol;
  return sym ? `${sym} (${mint})` : mint;
}
