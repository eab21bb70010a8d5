import { VersionedTransaction } from '@solana/web3.js';
import { generateInviteCode, inviteKeypairFromCode } from '../jupiter/send/inviteCode.js';
import type { JupiterClient } from '../jupiter/client.js';
import { USDC_MINT } from '../lib/mints.js';
import type { Intent } from '../sdk/intents.js';
import type { SolanaRpc } from '../solana/rpc.js';
import type { HotWallet } from '../solana/wallet.js';
import type { Allowance, BuiltTransaction } from './types.js';

/** Lamports one signature costs. */
const SIGNATURE_FEE = 5_000n;
/** Rent of a token account, with margin: a swap may create the wallet's output account. */
const TOKEN_ACCOUNT_RENT = 2_100_000n;
/** Budget for transactions that create a program account (limit order, DCA, prediction order, invite). */
const ACCOUNT_CREATION_BUDGET = 10_000_000n;
/** Blocks a blockhash stays valid. */
const BLOCKHASH_BLOCKS = 150n;

/** What the builders need. */
export interface BuildDeps {
  jup: JupiterClient;
  rpc: SolanaRpc;
  wallet: HotWallet;
  /** Largest slippage any swap may use, in bps. */
  maxSlippageBps: number;
  /** USD price of a mint from the latest feed (recurring orders need it for the service's minimums). */
  usdPrice(mint: string): { usd: number; decimals: number } | undefined;
  signal?: AbortSignal;
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
 * carried out, and the client's errors (transient or not) for the caller to classify.
 */
export async function buildTransaction(intent: Intent, deps: BuildDeps): Promise<BuiltTransaction> {
  const o = { signal: deps.signal };
  const owner = deps.wallet.address;
  switch (intent.kind) {
    case 'swap': {
      if (intent.slippageBps !== undefined && intent.slippageBps > deps.maxSlippageBps) {
        throw new BuildRefusal('rejected', 'RISK_SLIPPAGE', `slippage ${intent.slippageBps} bps is above the limit of ${deps.maxSlippageBps} bps`);
      }
      const outflow = new Map([[intent.inputMint, intent.amount]]);
      if (intent.via === 'ultra') {
        const order = await deps.jup.ultra.getOrder({ inputMint: intent.inputMint, outputMint: intent.outputMint, amount: intent.amount, taker: owner, slippageBps: intent.slippageBps }, o);
        if (order.slippageBps > deps.maxSlippageBps) {
          throw new BuildRefusal('rejected', 'RISK_SLIPPAGE', `the venue chose ${order.slippageBps} bps slippage, above the limit of ${deps.maxSlippageBps} bps`);
        }
        if (order.signatureFeePayer && order.signatureFeePayer !== owner) {
          // A market maker or Jupiter's gas sponsor pays the fee: the wallet is not the fee payer, which the guard
          // refuses. Say so here, with the reason, instead of building a transaction that will be refused.
          throw new BuildRefusal('failed', 'FEE_PAYER_NOT_WALLET', `the venue made ${order.signatureFeePayer} the fee payer (gasless or RFQ route); jup-keeper only signs transactions its wallet pays for`);
        }
        const tx = decode(order.transaction ?? '');
        const fees = SIGNATURE_FEE * BigInt(tx.message.header.numRequiredSignatures) + BigInt(order.prioritizationFeeLamports ?? 0) + BigInt(order.rentFeeLamports ?? 0) + TOKEN_ACCOUNT_RENT;
        return {
          tx,
          route: { via: 'ultra', requestId: order.requestId },
          lastValidBlockHeight: await lastValid(deps, order.lastValidBlockHeight),
          allowance: { ...allowance('ultra', outflow, fees), minInflow: new Map([[order.outputMint, order.otherAmountThreshold]]) },
          quote: { inputMint: order.inputMint, inAmount: order.inAmount, outputMint: order.outputMint, outAmount: order.outAmount, minOutAmount: order.otherAmountThreshold, slippageBps: order.slippageBps, feeBps: order.feeBps },
        };
      }
      const { quote, raw } = await deps.jup.swap.getQuote({ inputMint: intent.inputMint, outputMint: intent.outputMint, amount: intent.amount, slippageBps: intent.slippageBps ?? Math.min(50, deps.maxSlippageBps) }, o);
      const built = await deps.jup.swap.buildSwap({ userPublicKey: owner, quoteResponse: raw, dynamicComputeUnitLimit: true }, o);
      const tx = decode(built.swapTransaction);
      const fees = SIGNATURE_FEE * BigInt(tx.message.header.numRequiredSignatures) + BigInt(built.prioritizationFeeLamports ?? 0) + TOKEN_ACCOUNT_RENT;
      return {
        tx,
        route: { via: 'rpc' },
        lastValidBlockHeight: BigInt(built.lastValidBlockHeight),
        allowance: { ...allowance('swap', outflow, fees), minInflow: new Map([[quote.outputMint, quote.otherAmountThreshold]]) },
        quote: { inputMint: quote.inputMint, inAmount: quote.inAmount, outputMint: quote.outputMint, outAmount: quote.outAmount, minOutAmount: quote.otherAmountThreshold, slippageBps: quote.slippageBps },
      };
    }
    case 'trigger.create': {
      const r = await deps.jup.trigger.createOrder({ inputMint: intent.inputMint, outputMint: intent.outputMint, maker: owner, payer: owner, params: { makingAmount: intent.makingAmount, takingAmount: intent.takingAmount, expiredAt: intent.expiresAt } }, o);
      return routed(decode(r.transaction), { via: 'trigger', requestId: r.requestId }, allowance('trigger', new Map([[intent.inputMint, intent.makingAmount]]), ACCOUNT_CREATION_BUDGET), deps, { order: r.order ?? null });
    }
    case 'trigger.cancel': {
      const r = await deps.jup.trigger.cancelOrder({ maker: owner, order: intent.order }, o);
      return routed(decode(r.transaction), { via: 'trigger', requestId: r.requestId }, allowance('trigger', new Map(), SIGNATURE_FEE * 4n), deps, { order: intent.order });
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
      return routed(decode(r.transaction), { via: 'recurring', requestId: r.requestId }, allowance('recurring', new Map([[intent.inputMint, intent.inAmount]]), ACCOUNT_CREATION_BUDGET), deps, {});
    }
    case 'recurring.cancel': {
      const r = await deps.jup.recurring.cancelOrder({ order: intent.order, user: owner, recurringType: 'time' }, o);
      return routed(decode(r.transaction), { via: 'recurring', requestId: r.requestId }, allowance('recurring', new Map(), SIGNATURE_FEE * 4n), deps, { order: intent.order });
    }
    case 'lend.deposit': {
      const r = await deps.jup.lend.lendDeposit({ asset: intent.asset, signer: owner, amount: intent.amount }, o);
      return routed(decode(r.transaction), { via: 'rpc' }, allowance('lend', new Map([[intent.asset, intent.amount]]), TOKEN_ACCOUNT_RENT * 2n), deps, {});
    }
    case 'lend.withdraw': {
      const tokens = await deps.jup.lend.getLendTokens({}, o);
      const token = tokens.find((t) => t.assetAddress === intent.asset);
      if (!token) throw new BuildRefusal('failed', 'LEND_UNKNOWN_ASSET', `no Lend Earn market for ${intent.asset}`);
      const r = await deps.jup.lend.lendWithdraw({ asset: intent.asset, signer: owner, amount: intent.amount }, o);
      // Withdrawing burns share tokens worth the amount; allow 2 % over the quoted conversion.
      const shares = (intent.amount * token.totalSupply * 102n) / (100n * (token.totalAssets > 0n ? token.totalAssets : 1n)) + 1n;
      return routed(decode(r.transaction), { via: 'rpc' }, allowance('lend', new Map([[token.address, shares]]), TOKEN_ACCOUNT_RENT * 2n), deps, { shares });
    }
    case 'prediction.buy': {
      const r = await deps.jup.prediction.createPredictionOrder({ isBuy: true, ownerPubkey: owner, marketId: intent.marketId, isYes: intent.side === 'yes', depositAmount: intent.depositAmount, depositMint: intent.depositMint, maxBuyPriceUsd: intent.maxPriceMicroUsd }, o);
      const depositMint = intent.depositMint ?? USDC_MINT;
      return routedWithMeta(r, allowance('prediction', new Map([[depositMint, intent.depositAmount]]), ACCOUNT_CREATION_BUDGET), deps);
    }
    case 'prediction.sell': {
      const position = await deps.jup.prediction.getPredictionPosition({ positionPubkey: intent.positionPubkey }, o);
      const r = await deps.jup.prediction.createPredictionOrder({ isBuy: false, ownerPubkey: owner, positionPubkey: intent.positionPubkey, isYes: position.isYes, contractsMicro: intent.contractsMicro, minSellPriceUsd: intent.minPriceMicroUsd }, o);
      return routedWithMeta(r, allowance('prediction', new Map(), ACCOUNT_CREATION_BUDGET), deps);
    }
    case 'prediction.closeOrder': {
      const r = await deps.jup.prediction.closePredictionOrder({ ownerPubkey: owner, orderPubkey: intent.orderPubkey }, o);
      return routed(decode(r.transaction), { via: 'rpc' }, allowance('prediction', new Map(), SIGNATURE_FEE * 4n), deps, {});
    }
    case 'prediction.claim': {
      const r = await deps.jup.prediction.claimPredictionPosition({ ownerPubkey: owner, positionPubkey: intent.positionPubkey }, o);
      return routedWithMeta(r, allowance('prediction', new Map(), SIGNATURE_FEE * 4n), deps);
    }
    case 'send': {
      const code = generateInviteCode();
      const invite = inviteKeypairFromCode(code);
      const r = await deps.jup.send.craftSend({ inviteSigner: invite.publicKey.toBase58(), sender: owner, amount: intent.amount, mint: intent.mint }, o);
      const built = await routed(decode(r.tx), { via: 'rpc' }, allowance('send', new Map([[intent.mint, intent.amount]]), ACCOUNT_CREATION_BUDGET + r.totalFeeLamports), deps, { inviteCode: code, expiry: r.expiry });
      return { ...built, extraSigners: [{ sign: (tx: VersionedTransaction) => tx.sign([invite]) }] };
    }
    case 'send.clawback': {
      const r = await deps.jup.send.craftClawback({ invitePDA: intent.invitePda, sender: owner }, o);
      return routed(decode(r.tx), { via: 'rpc' }, allowance('send', new Map(), SIGNATURE_FEE * 4n), deps, {});
    }
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

function allowance(area: Allowance['area'], outflow: Map<string, bigint>, feeBudgetLamports: bigint): Allowance {
  return { area, maxOutflow: outflow, feeBudgetLamports };
}

/** The service's lastValidBlockHeight, or an upper bound: the height now plus the blockhash lifetime (read after the build, so never earlier than the truth). */
async function lastValid(deps: BuildDeps, fromService: string | number | bigint | undefined): Promise<bigint> {
  if (fromService !== undefined && /^\d+$/.test(String(fromService))) return BigInt(fromService);
  return (await deps.rpc.blockHeight()) + BLOCKHASH_BLOCKS;
}

async function routed(tx: VersionedTransaction, route: BuiltTransaction['route'], a: Allowance, deps: BuildDeps, quote: Record<string, unknown>): Promise<BuiltTransaction> {
  return { tx, route, lastValidBlockHeight: await lastValid(deps, undefined), allowance: a, quote };
}

async function routedWithMeta(r: { transaction: string | null; txMeta: { lastValidBlockHeight: number } | null }, a: Allowance, deps: BuildDeps): Promise<BuiltTransaction> {
  const tx = decode(r.transaction ?? '');
  return { tx, route: { via: 'rpc' }, lastValidBlockHeight: await lastValid(deps, r.txMeta?.lastValidBlockHeight), allowance: a, quote: {} };
}

