// idle-yield: keeps `reserve` of a token (USDC by default) in the wallet and puts the rest to work in Jupiter Lend
// Earn. Above the reserve by at least minMove, it deposits the excess; when the wallet falls below the reserve
// (another strategy spent it), it withdraws the shortfall, up to what is deposited. While a deposit or withdrawal
// of its own is pending it asks for nothing: the wallet and the position do not show that move yet.
import { z } from 'zod';
import { defineStrategy, type IntentInput, type StrategyContext } from '../../src/sdk/index.js';
import { baseUnitsParam, KNOWN_SYMBOLS, mintParam, SOL_MINT } from '../../src/sdk/symbols.js';

/** Lamports never deposited when the asset is SOL, whatever the reserve (0.02 SOL for fees and rent). */
export const IDLE_YIELD_SOL_RESERVE_LAMPORTS = 20_000_000n;

const USDC_MINT = KNOWN_SYMBOLS.USDC!.mint;

/** An amount in base units that may be zero: an integer string ("0", "1000000") or a safe integer; parses to bigint. */
const baseUnitsOrZero = z
  .custom<string | number>((v) => typeof v === 'string' || typeof v === 'number', { message: 'expected an integer amount in base units, as a string such as "1000000"' })
  .transform((v, ctx) => {
    const text = typeof v === 'number' ? (Number.isSafeInteger(v) ? String(v) : '') : v.trim();
    if (!/^\d+$/.test(text)) {
      ctx.addIssue({ code: 'custom', message: `expected an integer amount of 0 or more in base units (e.g. "1000000"), got ${JSON.stringify(v)}` });
      return z.NEVER;
    }
    return BigInt(text);
  });

/** Params of idle-yield, as written in the config. */
export const idleYieldParams = z
  .strictObject({
    /** The token kept in reserve and lent out: a symbol or a mint address with an Earn market. USDC by default. */
    asset: mintParam.default(USDC_MINT),
    /** Kept in the wallet, base units of the asset ("100000000" = 100 USDC); "0" lends everything. */
    reserve: baseUnitsOrZero,
    /** Smaller deposits and withdrawals are not worth a transaction, base units (default "1000000", 1 USDC). */
    minMove: baseUnitsParam.default(1_000_000n),
    /** Largest deposit or withdrawal at once, base units (keep it under risk.maxNotionalUsdPerIntent); unlimited when omitted. */
    maxMove: baseUnitsParam.optional(),
  })
  .refine((p) => p.maxMove === undefined || p.maxMove >= p.minMove, { message: 'maxMove must not be below minMove', path: ['maxMove'] });

/** Parsed params of idle-yield. */
export type IdleYieldParams = z.output<typeof idleYieldParams>;

const units = (amount: bigint): string => amount.toString();

/** The amount to move, or undefined when it is below minMove. */
function sized(amount: bigint, p: IdleYieldParams): bigint | undefined {
  const capped = p.maxMove !== undefined && amount > p.maxMove ? p.maxMove : amount;
  return capped >= p.minMove ? capped : undefined;
}

/** One decision: deposit the excess over the reserve, or withdraw the shortfall below it, or nothing. */
function decideIdleYield(ctx: StrategyContext<IdleYieldParams>): IntentInput[] {
  const p = ctx.params;
  const pending = ctx.pendingIntents.filter((i) => (i.intent.kind === 'lend.deposit' || i.intent.kind === 'lend.withdraw') && i.intent.asset === p.asset);
  if (pending.length > 0) {
    ctx.log.debug('waiting: a deposit or withdrawal is pending', { pending: pending.map((i) => `${i.kind} ${i.state}`) });
    return [];
  }
  const reserve = p.asset === SOL_MINT && p.reserve < IDLE_YIELD_SOL_RESERVE_LAMPORTS ? IDLE_YIELD_SOL_RESERVE_LAMPORTS : p.reserve;
  const balance = ctx.wallet.balance(p.asset);
  const deposited = ctx.positions.lend.filter((l) => l.asset === p.asset).reduce((sum, l) => sum + l.underlyingAssets, 0n);

  if (balance > reserve) {
    const amount = sized(balance - reserve, p);
    if (amount === undefined) return [];
    return [{ kind: 'lend.deposit', asset: p.asset, amount, reason: `idle: ${units(balance)} held, ${units(reserve)} kept in reserve; lending ${units(amount)}` }];
  }
  if (balance < reserve && deposited > 0n) {
    const shortfall = reserve - balance;
    const amount = sized(shortfall < deposited ? shortfall : deposited, p);
    if (amount === undefined) return [];
    return [{ kind: 'lend.withdraw', asset: p.asset, amount, reason: `reserve short: ${units(balance)} held of ${units(reserve)}; withdrawing ${units(amount)} of ${units(deposited)} lent` }];
  }
  if (balance < reserve) ctx.log.debug('below the reserve with nothing lent to withdraw', { balance: units(balance), reserve: units(reserve) });
  return [];
}

/** Lends out what the wallet holds of a token above a reserve, and withdraws to refill the reserve. */
export const idleYield = defineStrategy({
  name: 'idle-yield',
  version: '1.0.0',
  description: 'keep a reserve of a token in the wallet, deposit the rest into Jupiter Lend Earn, withdraw to refill the reserve',
  params: idleYieldParams,
  watches: (p) => ({ mints: [p.asset] }),
  emits: () => [{ kind: 'lend.deposit' }, { kind: 'lend.withdraw' }],
  decide: decideIdleYield,
});
