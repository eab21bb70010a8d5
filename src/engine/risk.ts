import { USDC_MINT, WSOL_MINT } from '../lib/mints.js';
import type { Intent } from '../sdk/intents.js';
import { killSwitchVerdict } from './killSwitch.js';
import type { MarketData, RiskCounters, WalletData } from './ports.js';

/** The limits of the risk gate (config `risk`). */
export interface RiskLimits {
  maxNotionalUsdPerIntent: number;
  maxDailyNotionalUsd: number;
  maxSlippageBps: number;
  minSolReserveLamports: bigint;
  refuseShieldSeverities: readonly string[];
}

/** A decision of the gate on one intent. */
export type RiskVerdict = { ok: true; notionalUsd: number } | { ok: false; code: string; message: string };

const WSOL = WSOL_MINT;

/**
 * The risk gate between decide() and the ledger: the kill switch (halt, or reduce-only), per-intent and daily notional limits, slippage,
 * the SOL reserve, and shield warnings on what would be bought. Rejections are recorded with their reason. The
 * daily notional is reserved separately (reserveDaily), once the intent is known to be new.
 */
export async function checkRisk(intent: Intent, ctx: { market: MarketData; wallet: WalletData; limits: RiskLimits; counters: RiskCounters; now: number }): Promise<RiskVerdict> {
  const stopped = killSwitchVerdict(await ctx.counters.killSwitch(), intent);
  if (stopped) return { ok: false, ...stopped };
  const { limits, market, wallet } = ctx;
  const spend = spendOf(intent);
  let notionalUsd = 0;
  if (spend) {
    const price = market.prices[spend.mint];
    if (!price) return { ok: false, code: 'RISK_NO_PRICE', message: `no price for ${spend.mint}: its USD value cannot be checked` };
    notionalUsd = (Number(spend.amount) / 10 ** price.decimals) * price.usd;
    if (notionalUsd > limits.maxNotionalUsdPerIntent) {
      return { ok: false, code: 'RISK_NOTIONAL', message: `$${notionalUsd.toFixed(2)} is above the per-intent limit of $${limits.maxNotionalUsdPerIntent}` };
    }
    const balance = spend.mint === WSOL ? wallet.lamports : (wallet.holdings.find((h) => h.mint === spend.mint)?.amount ?? 0n);
    const reserve = spend.mint === WSOL ? limits.minSolReserveLamports : 0n;
    if (balance < spend.amount + reserve) {
      return { ok: false, code: 'RISK_BALANCE', message: `the wallet holds ${balance} of ${spend.mint}, needs ${spend.amount}${reserve > 0n ? ` plus a reserve of ${reserve}` : ''}` };
    }
  }
  if (wallet.lamports < limits.minSolReserveLamports) {
    return { ok: false, code: 'RISK_SOL_RESERVE', message: `the wallet has ${wallet.lamports} lamports, below the reserve of ${limits.minSolReserveLamports} kept for fees` };
  }
  if (intent.kind === 'swap' && intent.slippageBps !== undefined && intent.slippageBps > limits.maxSlippageBps) {
    return { ok: false, code: 'RISK_SLIPPAGE', message: `slippage ${intent.slippageBps} bps is above the limit of ${limits.maxSlippageBps} bps` };
  }
  const bought = boughtMint(intent);
  if (bought) {
    const warnings = (market.tokens[bought]?.warnings ?? []).filter((w) => limits.refuseShieldSeverities.includes(w.severity));
    if (warnings.length > 0) return { ok: false, code: 'RISK_SHIELD', message: `${bought} has ${warnings.map((w) => `${w.severity} ${w.type}`).join(', ')}` };
  }
  return { ok: true, notionalUsd };
}

/** What an intent spends from the wallet, if anything. */
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
    case 'prediction.buy':
      return { mint: intent.depositMint ?? USDC_MINT, amount: intent.depositAmount };
    case 'send':
      return { mint: intent.mint, amount: intent.amount };
    default:
      return undefined;
  }
}

function boughtMint(intent: Intent): string | undefined {
  if (intent.kind === 'swap' || intent.kind === 'trigger.create' || intent.kind === 'recurring.create') return intent.outputMint;
  return undefined;
}

/** Counts an accepted intent against the daily notional limit; a rejection verdict when it would pass it. */
export async function reserveDaily(notionalUsd: number, limits: RiskLimits, counters: RiskCounters, now: number): Promise<RiskVerdict> {
  if (notionalUsd <= 0 || (await counters.reserveNotional(notionalUsd, limits.maxDailyNotionalUsd, now))) return { ok: true, notionalUsd };
  return { ok: false, code: 'RISK_DAILY', message: `today's notional would pass the daily limit of $${limits.maxDailyNotionalUsd}` };
}
