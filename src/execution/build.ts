import { VersionedTransaction } from '@solana/web3.js';
import { inviteKeypairFromCode } from '../jupiter/send/inviteCode.js';
import type { JupiterClient } from '../jupiter/client.js';
import type { UltraRouter } from '../jupiter/ultra/getOrder.js';
import type { PredictionClaimBuild } from '../jupiter/prediction/claimPredictionPosition.js';
import type { BuiltPredictionOrder } from '../jupiter/prediction/createPredictionOrder.js';
import { AlreadyClaimedError, ClaimNotRequiredError } from '../jupiter/prediction/errors.js';
import type { Intent } from '../sdk/intents.js';
import type { SolanaRpc } from '../solana/rpc.js';
import type { HotWallet } from '../solana/wallet.js';
import { buildMetisSwap, describeAttempts } from './metisSwap.js';
import { inviteCodeFor } from './sendInvite.js';
import { DEFAULT_MAX_QUOTE_AGE_MS, type BuiltTransaction } from './types.js';

/** Blocks a blockhash stays valid. */
const BLOCKHASH_BLOCKS = 150n;

/** What the builders need. */
export interface BuildDeps {
  jup: JupiterClient;
  rpc: SolanaRpc;
  wallet: HotWallet;
  /** The intent's id: a send's invite code is derived from it and the wallet (never stored). */
  intentId: string;
  /** Largest slippage any swap may use, in bps. */
  maxSlippageBps: number;
  /** USD price of a mint from the latest feed (recurring orders need it for the service's minimums). */
  usdPrice(mint: string): { usd: number; decimals: number } | undefined;
  /** maxAccounts a Metis quote is asked with, in turn, while its transaction does not fit (default MAX_ACCOUNTS_STEPS). */
  maxAccountsSteps?: readonly number[] | undefined;
  /** Ultra orders (config `api.ultra`): routers excluded, and the longest an order may stay landable from its request, ms. */
  ultra?: { excludeRouters?: readonly UltraRouter[] | undefined; maxQuoteAgeMs?: number | undefined } | undefined;
  /** The clock an Ultra order's age starts on (unix ms; default Date.now). */
  now?: () => number;
  signal?: AbortSignal;
}

/**
 * Raised by a builder when the venue says the intent's effect is already there (a claim already paid): the intent
 * ends done (landed, with nothing signed), not failed.
 */
export class AlreadyDone extends Error {
  constructor(
    readonly code: string,
    message: string,
  ) {
    super(message);
  }
}

/** Raised by a builder when the intent cannot be carried out as asked (not retried). */
export class BuildRefusal extends Error {
  constructor(
    readonly state: 'failed' | 'rejected',
    readonly code: string,
    message: string,
  ) {
    super(message);
  }
}

/**
 * Asks the service for the unsigned transaction of an intent. Throws BuildRefusal for intents that cannot be
 * carried out, and the client's errors (transient or not) for the caller to classify. What the venue answers is
 * recorded as the quote, and used to refuse early where it already shows a problem; the guard's limits never come
 * from it (see guardPolicy.ts).
 */
export async function buildTransaction(intent: Intent, deps: BuildDeps): Promise<BuiltTransaction> {
  const o = { signal: deps.signal };
  const owner = deps.wallet.address;
  switch (intent.kind) {
    case 'swap': {
      if (intent.slippageBps !== undefined && intent.slippageBps > deps.maxSlippageBps) {
        throw new BuildRefusal('rejected', 'RISK_SLIPPAGE', `slippage ${intent.slippageBps} bps is above the limit of ${deps.maxSlippageBps} bps`);
      }
      if (intent.via === 'ultra') return buildUltraSwap(intent, deps);
      const swapMode = intent.swapMode ?? 'ExactIn';
      const metis = await buildMetisSwap(deps.jup, { inputMint: intent.inputMint, outputMint: intent.outputMint, amount: intent.amount, swapMode, slippageBps: intent.slippageBps ?? Math.min(50, deps.maxSlippageBps), userPublicKey: owner, maxAccountsSteps: deps.maxAccountsSteps }, o);
      if (!metis.ok) throw new BuildRefusal('failed', 'SWAP_TX_TOO_LARGE', describeAttempts(metis.attempts));
      const { quote, swap: built } = metis;
      // ExactIn's threshold is the least output, ExactOut's the most input: recorded, never the guard's bound.
      const threshold = swapMode === 'ExactOut' ? { maxInAmount: quote.otherAmountThreshold } : { minOutAmount: quote.otherAmountThreshold };
      return {
        tx: decode(built.swapTransaction),
        route: { via: 'rpc' },
        lastValidBlockHeight: BigInt(built.lastValidBlockHeight),
        quote: { inputMint: quote.inputMint, inAmount: quote.inAmount, outputMint: quote.outputMint, outAmount: quote.outAmount, swapMode, ...threshold, slippageBps: quote.slippageBps, maxAccounts: metis.maxAccounts, bytes: metis.bytes, requotes: metis.attempts.length },
      };
    }
    case 'trigger.create': {
      const r = await deps.jup.trigger.createOrder({ inputMint: intent.inputMint, outputMint: intent.outputMint, maker: owner, payer: owner, params: { makingAmount: intent.makingAmount, takingAmount: intent.takingAmount, expiredAt: intent.expiresAt } }, o);
      return routed(decode(r.transaction), { via: 'trigger', requestId: r.requestId }, deps, { order: r.order ?? null });
    }
    case 'trigger.cancel': {
      const r = await deps.jup.trigger.cancelOrder({ maker: owner, order: intent.order }, o);
      return routed(decode(r.transaction), { via: 'trigger', requestId: r.requestId }, deps, { order: intent.order });
    }
    case 'recurring.create': {
      const price = deps.usdPrice(intent.inputMint);
      if (!price) throw new BuildRefusal('failed', 'NO_PRICE', `no USD price for ${intent.inputMint}: the recurring minimums cannot be checked`);
      const r = await deps.jup.recurring.createOrder({
        user: owner,
        inputMint: intent.inputMint,
        outputMint: intent.outputMint,
        params: { inAmount: intent.inAmount, numberOfOrders: intent.numberOfOrders, interval: intent.intervalSeconds, minPrice: intent.minPrice, maxPrice: intent.maxPrice },
        inputUsdPrice: price.usd,
        inputDecimals: price.decimals,
      }, o);
      return routed(decode(r.transaction), { via: 'recurring', requestId: r.requestId }, deps, {});
    }
    case 'recurring.cancel': {
      const r = await deps.jup.recurring.cancelOrder({ order: intent.order, user: owner, recurringType: 'time' }, o);
      return routed(decode(r.transaction), { via: 'recurring', requestId: r.requestId }, deps, { order: intent.order });
    }
    case 'lend.deposit': {
      const r = await deps.jup.lend.lendDeposit({ asset: intent.asset, signer: owner, amount: intent.amount }, o);
      return routed(decode(r.transaction), { via: 'rpc' }, deps, {});
    }
    case 'lend.withdraw': {
      const tokens = await deps.jup.lend.getLendTokens({}, o);
      const token = tokens.find((t) => t.assetAddress === intent.asset);
      if (!token) throw new BuildRefusal('failed', 'LEND_UNKNOWN_ASSET', `no Lend Earn market for ${intent.asset}`);
      const r = await deps.jup.lend.lendWithdraw({ asset: intent.asset, signer: owner, amount: intent.amount }, o);
      // Withdrawing burns share tokens worth the amount: at most 2 % over the listing's conversion. The share mint and
      // the rate come from the lend listing, a separate read, not from the transaction being checked.
      const shares = (intent.amount * token.totalSupply * 102n) / (100n * (token.totalAssets > 0n ? token.totalAssets : 1n)) + 1n;
      return { ...(await routed(decode(r.transaction), { via: 'rpc' }, deps, { shares })), burn: { mint: token.address, max: shares } };
    }
    case 'lend.mint': {
      // Exact shares for what they cost at the program's exchange price: the guard holds the asset paid to at most
      // the intent's maxAmount (an upTo escrow rule), whatever the venue says the shares cost.
      const r = await deps.jup.lend.lendMint({ asset: intent.asset, signer: owner, shares: intent.shares }, o);
      return routed(decode(r.transaction), { via: 'rpc' }, deps, { shares: intent.shares });
    }
    case 'lend.redeem': {
      const tokens = await deps.jup.lend.getLendTokens({}, o);
      const token = tokens.find((t) => t.assetAddress === intent.asset);
      if (!token) throw new BuildRefusal('failed', 'LEND_UNKNOWN_ASSET', `no Lend Earn market for ${intent.asset}`);
      const r = await deps.jup.lend.lendRedeem({ asset: intent.asset, signer: owner, shares: intent.shares }, o);
      // Exactly the intent's shares of the asset's share mint (from the listing, a separate read) may be burnt.
      return { ...(await routed(decode(r.transaction), { via: 'rpc' }, deps, { shares: intent.shares })), burn: { mint: token.address, max: intent.shares } };
    }
    case 'prediction.buy': {
      // The live service takes no price limit (jupiter-api.md §13 item 13): the build reports the one it fills at.
      const r = await deps.jup.prediction.createPredictionOrder({ isBuy: true, ownerPubkey: owner, marketId: intent.marketId, isYes: intent.side === 'yes', depositAmount: intent.depositAmount, depositMint: intent.depositMint }, o);
      checkPredictionLimit('buy', r.order.maxBuyPriceUsd, intent.maxPriceMicroUsd);
      return routedWithMeta(r, deps, orderQuote(r.order));
    }
    case 'prediction.sell': {
      const position = await deps.jup.prediction.getPredictionPosition({ positionPubkey: intent.positionPubkey }, o);
      const r = await deps.jup.prediction.createPredictionOrder({ isBuy: false, ownerPubkey: owner, positionPubkey: intent.positionPubkey, isYes: position.isYes, contractsMicro: intent.contractsMicro }, o);
      checkPredictionLimit('sell', r.order.minSellPriceUsd, intent.minPriceMicroUsd);
      return routedWithMeta(r, deps, orderQuote(r.order));
    }
    case 'prediction.closePosition': {
      // The service sets the floor of a whole-position sell (order.minSellPriceUsd): held to the intent's.
      const r = await deps.jup.prediction.closePredictionPosition({ ownerPubkey: owner, positionPubkey: intent.positionPubkey }, o);
      checkPredictionLimit('sell', r.order.minSellPriceUsd, intent.minPriceMicroUsd);
      return routedWithMeta(r, deps, orderQuote(r.order));
    }
    case 'prediction.closeOrder': {
      const r = await deps.jup.prediction.closePredictionOrder({ ownerPubkey: owner, orderPubkey: intent.orderPubkey }, o);
      return routed(decode(r.transaction), { via: 'rpc' }, deps, { order: intent.orderPubkey });
    }
    case 'prediction.claim': {
      let r: PredictionClaimBuild;
      try {
        r = await deps.jup.prediction.claimPredictionPosition({ ownerPubkey: owner, positionPubkey: intent.positionPubkey }, o);
      } catch (err) {
        // Claimed already (by the owner elsewhere, another keeper, the venue's auto-claim), or paid out without a
        // claim: the intent's effect is there. Done, not failed.
        if (err instanceof AlreadyClaimedError || err instanceof ClaimNotRequiredError) throw new AlreadyDone(err.code, err.message);
        throw err;
      }
      return routedWithMeta(r, deps, { position: r.position.positionPubkey, payoutMicroUsd: r.position.payoutAmountUsd, contractsMicro: r.position.contractsMicro ?? r.position.contracts * 1_000_000n });
    }
    case 'send': {
      // The code is derived from the wallet and the intent id: never stored, the same after a restart, and shown
      // to the operator once the send lands (see sendInvite.ts).
      const invite = inviteKeypairFromCode(inviteCodeFor(deps.wallet, deps.intentId));
      const r = await deps.jup.send.craftSend({ inviteSigner: invite.publicKey.toBase58(), sender: owner, amount: intent.amount, mint: intent.mint }, o);
      const built = await routed(decode(r.tx), { via: 'rpc' }, deps, { expiry: r.expiry });
      return {
        ...built,
        extraSigners: [{ sign: (tx: VersionedTransaction) => tx.sign([invite]) }],
        engineSigners: [invite.publicKey.toBase58()],
      };
    }
    case 'send.clawback': {
      const r = await deps.jup.send.craftClawback({ invitePDA: intent.invitePda, sender: owner }, o);
      return routed(decode(r.tx), { via: 'rpc' }, deps, {});
    }
  }
}

/**
 * An Ultra order: whichever route the venue picks among the routers the config leaves it (Metis with the wallet as
 * fee payer; JupiterZ, whose market maker pays the fee and signs after the wallet; Metis gasless, whose fee Jupiter's
 * gas wallet pays). The guard holds every route to the same rules (a fee payer other than the wallet only as
 * policy.sponsoredFees allows). What the venue says of the route is recorded, and refused early where it already
 * breaks a bound: a JupiterZ quote that stays landable past the maximum quote age (the guard checks the fill itself).
 */
async function buildUltraSwap(intent: Extract<Intent, { kind: 'swap' }>, deps: BuildDeps): Promise<BuiltTransaction> {
  const quotedAt = (deps.now ?? Date.now)();
  const maxAge = deps.ultra?.maxQuoteAgeMs ?? DEFAULT_MAX_QUOTE_AGE_MS;
  const exclude = deps.ultra?.excludeRouters;
  const order = await deps.jup.ultra.getOrder(
    { inputMint: intent.inputMint, outputMint: intent.outputMint, amount: intent.amount, taker: deps.wallet.address, slippageBps: intent.slippageBps, excludeRouters: exclude && exclude.length > 0 ? exclude : undefined },
    { signal: deps.signal },
  );
  if (order.slippageBps > deps.maxSlippageBps) {
    throw new BuildRefusal('rejected', 'RISK_SLIPPAGE', `the venue chose ${order.slippageBps} bps slippage, above the limit of ${deps.maxSlippageBps} bps`);
  }
  if (order.expireAt !== undefined && /^\d+$/.test(order.expireAt) && Number(order.expireAt) * 1000 > quotedAt + maxAge) {
    throw new BuildRefusal('rejected', 'ULTRA_QUOTE_AGE', `the ${order.router ?? 'RFQ'} quote stays landable until ${new Date(Number(order.expireAt) * 1000).toISOString()}, more than api.ultra.maxQuoteAge (${Math.round(maxAge / 1000)} s) after it was asked for; raise the bound or exclude the router (api.ultra.excludeRouters)`);
  }
  const route = { router: order.router ?? null, swapType: order.swapType ?? null, gasless: order.gasless ?? null, feePayer: order.signatureFeePayer ?? null, ...(order.maker !== undefined ? { maker: order.maker, quoteId: order.quoteId ?? null, expireAt: order.expireAt ?? null } : {}) };
  return {
    tx: decode(order.transaction ?? ''),
    route: { via: 'ultra', requestId: order.requestId },
    lastValidBlockHeight: await lastValid(deps, order.lastValidBlockHeight),
    quote: { inputMint: order.inputMint, inAmount: order.inAmount, outputMint: order.outputMint, outAmount: order.outAmount, minOutAmount: order.otherAmountThreshold, slippageBps: order.slippageBps, feeBps: order.feeBps, ...route, quotedAt },
    quotedAt,
    signBy: quotedAt + maxAge,
  };
}

/**
 * A prediction order's price limit as the build reports it, held to the intent's: a buy may not fill above it, a
 * sell not below. An order that reports none cannot be held to anything, so it is not signed either. This is an
 * early refusal on what the venue says; the limit the transaction really carries (create_order's
 * max_fill_price_usd) is held to the intent by the guard (rule product-price-limit, src/execution/productGuard).
 */
function checkPredictionLimit(side: 'buy' | 'sell', reported: bigint | null, limit: bigint): void {
  const field = side === 'buy' ? 'maxBuyPriceUsd' : 'minSellPriceUsd';
  if (reported === null) throw new BuildRefusal('failed', 'PREDICTION_NO_LIMIT', `the venue's order reports no ${field}, so its price cannot be held to the intent's ${limit} micro-USD`);
  if (side === 'buy' ? reported > limit : reported < limit) {
    throw new BuildRefusal('rejected', 'PREDICTION_PRICE_LIMIT', `the venue's order would ${side} at ${side === 'buy' ? 'up to' : 'as little as'} ${reported} micro-USD a contract (${field}); the intent's limit is ${limit}`);
  }
}

function decode(base64: string): VersionedTransaction {
  if (!base64) throw new BuildRefusal('failed', 'NO_TRANSACTION', 'the service returned no transaction');
  try {
    return VersionedTransaction.deserialize(Buffer.from(base64, 'base64'));
  } catch {
    throw new BuildRefusal('failed', 'BAD_TRANSACTION', 'the service returned bytes that are not a transaction');
  }
}

/**
 * The service's lastValidBlockHeight, or an upper bound: the height now plus the blockhash lifetime (read after the
 * build, so never earlier than the truth; the read is shared with the other executions' reads of the moment, and
 * leaves after this call).
 */
async function lastValid(deps: BuildDeps, fromService: string | number | bigint | undefined): Promise<bigint> {
  if (fromService !== undefined && /^\d+$/.test(String(fromService))) return BigInt(fromService);
  return (await deps.rpc.sharedBlockHeight()) + BLOCKHASH_BLOCKS;
}

async function routed(tx: VersionedTransaction, route: BuiltTransaction['route'], deps: BuildDeps, quote: Record<string, unknown>): Promise<BuiltTransaction> {
  return { tx, route, lastValidBlockHeight: await lastValid(deps, undefined), quote };
}

async function routedWithMeta(r: { transaction: string | null; txMeta: { lastValidBlockHeight: number } | null }, deps: BuildDeps, quote: Record<string, unknown>): Promise<BuiltTransaction> {
  const tx = decode(r.transaction ?? '');
  return { tx, route: { via: 'rpc' }, lastValidBlockHeight: await lastValid(deps, r.txMeta?.lastValidBlockHeight), quote };
}

/**
 * What the ledger keeps of a prediction order's build: its order account and position account (the venue
 * reconciliation follows the order by them, the sweep its escrow), the escrow, and what the venue quoted.
 */
function orderQuote(order: BuiltPredictionOrder): Record<string, unknown> {
  return {
    order: order.orderPubkey,
    position: order.positionPubkey,
    escrow: order.orderAtaPubkey ?? null,
    contractsMicro: order.contractsMicro ?? order.contracts * 1_000_000n,
    orderCostMicroUsd: order.orderCostUsd,
    feeMicroUsd: order.estimatedTotalFeeUsd,
    limitMicroUsd: order.isBuy ? order.maxBuyPriceUsd : order.minSellPriceUsd,
  };
}
