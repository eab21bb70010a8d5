import type { PublicKey } from '@solana/web3.js';
import type { MarketData } from '../engine/ports.js';
import { decodeFill, isFill } from '../jupiter/ultra/orderEngine.js';
import { USDC_MINT, WSOL_MINT } from '../lib/mints.js';
import { PROGRAM_IDS } from '../lib/programIds.js';
import type { Intent } from '../sdk/intents.js';
import { GuardUnavailable, type GuardPolicy, type SpendRule } from '../solana/guard.js';
import { allowedProgramsFor, type ApiArea } from '../solana/programs.js';
import { ultraMaxFeeBps } from './feeTable.js';
import { productCheckFor } from './productGuard/index.js';
import { DEFAULT_MAX_QUOTE_AGE_MS, type BuiltTransaction } from './types.js';

/** What the policy is made of besides the intent: the configuration and independent sources. */
export interface PolicyContext {
  wallet: PublicKey;
  /** The config's risk limits the guard applies. */
  risk: { maxSlippageBps: number; maxPriorityFeeLamports: bigint; allowToken2022Mints: readonly string[] };
  /** The venue's declared co-signers (config `venue.coSigners`, and the simulator's own at start). */
  coSigners: readonly string[];
  /** Extra top-level programs the operator allows, per API area (config `venue.allowPrograms`). */
  extraPrograms?: Partial<Readonly<Record<ApiArea, readonly string[]>>> | undefined;
  /**
   * Longest an Ultra order may stay landable, counted from its request, ms (config `api.ultra.maxQuoteAge`): a JupiterZ
   * fill expiring later is refused (rule quote-expiry). Default DEFAULT_MAX_QUOTE_AGE_MS.
   */
  maxQuoteAgeMs?: number | undefined;
  /** The latest market snapshot (the price feed), or undefined when there is none yet. */
  market: MarketData | undefined;
  /** Oldest market snapshot a swap may be valued with, ms. */
  maxPriceAgeMs: number;
  now: number;
}

/**
 * The guard's policy for one built transaction, derived from the intent, the configuration and the price feed: never
 * from the venue's response (docs/architecture.md § The pre-sign guard). What the engine itself adds to the
 * transaction (a send invite's signer) and what it read from a separate listing (a lend withdrawal's share token)
 * come with the build. Throws GuardUnavailable when the feed cannot value a swap yet (retry).
 */
export async function guardPolicyFor(intent: Intent, built: Pick<BuiltTransaction, 'engineSigners' | 'burn' | 'quotedAt'>, ctx: PolicyContext): Promise<GuardPolicy> {
  const product = await productCheckFor(intent, { wallet: ctx.wallet, inviteSigner: built.engineSigners?.[0] });
  const area = areaOf(intent);
  const policy = (spend: SpendRule, extra: Partial<GuardPolicy> = {}): GuardPolicy => ({
    wallet: ctx.wallet,
    area,
    allowedPrograms: allowedProgramsFor(area, ctx.extraPrograms?.[area]),
    coSigners: new Set([...ctx.coSigners, ...(built.engineSigners ?? [])]),
    maxPriorityFeeLamports: ctx.risk.maxPriorityFeeLamports,
    spend,
    // Cancels, claims and withdrawals may return wrapped SOL that the venue unwraps back to the wallet.
    mayUnwrapSol: true,
    allowToken2022Mints: new Set(ctx.risk.allowToken2022Mints),
    product,
    ...extra,
  });
  // Where the escrow is, is the product instruction's to say (its check's ProductTerms), tied to the intent there.
  const escrow = (mint: string, amount: bigint): SpendRule => ({ kind: 'escrow', mint, amount });
  switch (intent.kind) {
    case 'swap':
      return policy(
        { kind: 'counterparty', mint: intent.inputMint, max: intent.amount },
        { swap: swapTerms(intent, ctx), mayUnwrapSol: intent.inputMint === WSOL_MINT || intent.outputMint === WSOL_MINT, ...(intent.via === 'ultra' ? ultraRoutes(built, ctx) : {}) },
      );
    case 'trigger.create':
      return policy(escrow(intent.inputMint, intent.makingAmount), { mayUnwrapSol: intent.inputMint === WSOL_MINT });
    case 'recurring.create':
      return policy(escrow(intent.inputMint, intent.inAmount), { mayUnwrapSol: intent.inputMint === WSOL_MINT });
    case 'lend.deposit':
      return policy(escrow(intent.asset, intent.amount), { mayUnwrapSol: intent.asset === WSOL_MINT });
    case 'prediction.buy':
      return policy(escrow(intent.depositMint ?? USDC_MINT, intent.depositAmount), { mayUnwrapSol: false, ...GASLESS_PREDICTION_ORDER });
    case 'prediction.sell':
    case 'prediction.closePosition':
      return policy({ kind: 'nothing' }, GASLESS_PREDICTION_ORDER);
    case 'send':
      return policy(escrow(intent.mint, intent.amount), { mayUnwrapSol: intent.mint === WSOL_MINT });
    case 'lend.mint':
      return policy({ kind: 'escrow', mint: intent.asset, amount: intent.maxAmount, upTo: true }, { mayUnwrapSol: intent.asset === WSOL_MINT });
    case 'lend.withdraw':
    case 'lend.redeem':
      return policy({ kind: 'nothing' }, { burn: built.burn });
    case 'trigger.cancel':
    case 'recurring.cancel':
    case 'prediction.closeOrder':
    case 'prediction.claim':
    case 'send.clawback':
      return policy({ kind: 'nothing' });
  }
}

/**
 * A prediction order (create_order: a buy, a sell, a close of a position) may be gasless: the API builds it with
 * Jupiter's gas payer as the fee payer and create_order's rent payer, its signature already in place (SAC
 * `positions.json`, `isGasless: true`, 748XjH… on 2026-09-28). The wallet is then a required signer that pays no fee
 * and no tip; the product check accepts that fee payer as the order's payer; every other rule holds (the deposit
 * only into the order's escrow, nothing else leaving the wallet). No gasless cancel or claim has been seen: those
 * still need the wallet as the fee payer. The guard counts a sponsor among the counterparties (as a swap's maker),
 * which allows a create_order nothing more: it names no account paying out (no ProductTerms.payers), and what it
 * spends goes into an escrow or nowhere, never to a counterparty.
 */
const GASLESS_PREDICTION_ORDER: Partial<GuardPolicy> = { sponsoredFees: true };

/**
 * Jupiter's gas wallet (DOCS `swap/advanced/gasless.mdx`: the `signatureFeePayer` of automatic sponsorship, and the
 * payer of a JupiterZ taker's new output token account). Ultra's own is not named in its docs: if it differs, declare
 * it in `venue.coSigners`.
 */
export const JUPITER_GAS_WALLET = 'gasTzr94Pmp4Gf8vknQnqxeYxdgwFjbgdJa4msYRpnB';

/**
 * What Ultra's real routes need beyond Metis's (jupiter-api.md §1.2): a JupiterZ market maker or Jupiter's gas wallet
 * may pay the fee and sign after the wallet (the wallet then pays none), and a JupiterZ fill may not stay landable
 * past the order's request plus `maxQuoteAgeMs`, on the expiry the fill itself carries (the chain enforces it).
 */
function ultraRoutes(built: Pick<BuiltTransaction, 'quotedAt'>, ctx: PolicyContext): Partial<GuardPolicy> {
  const maxAge = ctx.maxQuoteAgeMs ?? DEFAULT_MAX_QUOTE_AGE_MS;
  const latest = BigInt(Math.floor(((built.quotedAt ?? ctx.now) + maxAge) / 1000));
  return {
    sponsoredFees: true,
    // Jupiter's gas wallet signs a JupiterZ order beside the maker when it opens the taker's output account.
    coSigners: new Set([...ctx.coSigners, JUPITER_GAS_WALLET]),
    expiry: {
      latest,
      source: `api.ultra.maxQuoteAge, ${Math.round(maxAge / 1000)} s from the order's request`,
      // Every instruction of the order engine is a fill, whose expiry the program enforces; anything else has none.
      read: (instructions) => instructions.filter((ix) => ix.programId === PROGRAM_IDS.jupiterOrderEngine).map((ix) => {
        if (!isFill(ix)) return `an instruction of the order engine ${ix.programId} that is not its fill`;
        try {
          return decodeFill(ix).expireAt;
        } catch (err) {
          return err instanceof Error ? err.message : String(err);
        }
      }),
    },
  };
}

/** The API area whose programs an intent's transaction may invoke. */
export function areaOf(intent: Intent): ApiArea {
  switch (intent.kind) {
    case 'swap':
      return intent.via === 'ultra' ? 'ultra' : 'swap';
    case 'trigger.create':
    case 'trigger.cancel':
      return 'trigger';
    case 'recurring.create':
    case 'recurring.cancel':
      return 'recurring';
    case 'lend.deposit':
    case 'lend.withdraw':
    case 'lend.mint':
    case 'lend.redeem':
      return 'lend';
    case 'send':
    case 'send.clawback':
      return 'send';
    default:
      return 'prediction';
  }
}

/** A swap valued at the feed: both prices fresh, the slippage bound of the intent (or the config), the fee table. */
function swapTerms(intent: Extract<Intent, { kind: 'swap' }>, ctx: PolicyContext): GuardPolicy['swap'] {
  const market = ctx.market;
  const age = market ? ctx.now - market.at : Infinity;
  if (!market || age > ctx.maxPriceAgeMs) {
    throw new GuardUnavailable('no-price', market ? `the price feed is ${Math.round(age / 1000)} s old (feeds.maxPriceAge)` : 'no price snapshot yet');
  }
  const input = market.prices[intent.inputMint];
  const output = market.prices[intent.outputMint];
  if (!input || !output || !(input.usd > 0) || !(output.usd > 0)) {
    throw new GuardUnavailable('no-price', `the price feed has no price for ${!input || !(input.usd > 0) ? intent.inputMint : intent.outputMint}, so the swap's output cannot be valued`);
  }
  const warnings = (mint: string) => market.tokens[mint]?.warnings.map((w) => w.type) ?? [];
  return {
    inputMint: intent.inputMint,
    outputMint: intent.outputMint,
    // ExactOut: the amount is the output; the guard bounds the input by the feed's worth of it (swapSpend).
    swapMode: intent.swapMode ?? 'ExactIn',
    amount: intent.amount,
    inputUsd: input.usd,
    outputUsd: output.usd,
    inputDecimals: input.decimals,
    outputDecimals: output.decimals,
    slippageBps: Math.min(intent.slippageBps ?? ctx.risk.maxSlippageBps, ctx.risk.maxSlippageBps),
    // Metis (/swap/v1) charges no Jupiter fee: jup-keeper asks for no platform fee.
    feeBps: intent.via === 'ultra' ? ultraMaxFeeBps(intent.inputMint, intent.outputMint, { input: { warnings: warnings(intent.inputMint) }, output: { warnings: warnings(intent.outputMint) } }) : 0,
  };
}
