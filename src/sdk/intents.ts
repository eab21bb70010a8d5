import { z } from 'zod';

/** What a strategy asks for: one action the service offers. Amounts are bigint base units; prediction prices micro-USD. */

const address = z.string().regex(/^[1-9A-HJ-NP-Za-km-z]{32,44}$/, 'expected a base58 address');
const amount = z.bigint().positive('amount must be greater than 0');
const bps = z.number().int().min(0).max(10_000);
const microUsd = z.bigint().min(10_000n, 'at least 10,000 micro-USD ($0.01)').max(990_000n, 'at most 990,000 micro-USD ($0.99)');

/** Fields every intent may carry. */
const common = {
  /**
   * Distinguishes two intents of the same kind and subject in one decision window (e.g. two ladder rungs). It is
   * part of the intent id, so the same key in the same window is the same intent, however often decide() runs.
   */
  key: z.string().regex(/^[A-Za-z0-9_.-]{1,64}$/, 'key: 1 to 64 letters, digits, _ . -').optional(),
  /** Why the strategy wants it; shown in status and logs. */
  reason: z.string().max(200).optional(),
};

/**
 * Swap `amount` of the input for the output: Ultra order+execute, or a Metis quote+swap sent through RPC. With
 * `swapMode: 'ExactOut'` (Metis only), `amount` is the output received exactly, in output base units, and the input
 * paid is bounded by what that output is worth at the price feed plus the slippage.
 */
export const swapIntent = z.object({
  kind: z.literal('swap'),
  via: z.enum(['ultra', 'metis']).default('ultra'),
  inputMint: address,
  outputMint: address,
  amount,
  /** ExactIn (when omitted): `amount` is the input spent. ExactOut: `amount` is the output received. */
  swapMode: z.enum(['ExactIn', 'ExactOut']).optional(),
  /** Maximum slippage; Ultra picks its own when omitted. */
  slippageBps: bps.optional(),
  ...common,
})
  .refine((i) => i.inputMint !== i.outputMint, { message: 'inputMint and outputMint must differ', path: ['outputMint'] })
  .refine((i) => !(i.swapMode === 'ExactOut' && i.via === 'ultra'), {
    message: "an ExactOut swap needs via: 'metis' (Ultra's /order takes an input amount only)",
    path: ['swapMode'],
  });

/** Place a limit order: sell makingAmount of the input for at least takingAmount of the output. */
export const triggerCreateIntent = z.object({
  kind: z.literal('trigger.create'),
  inputMint: address,
  outputMint: address,
  makingAmount: amount,
  takingAmount: amount,
  /** Unix seconds after which the order expires. */
  expiresAt: z.number().int().positive().optional(),
  ...common,
});

/** Cancel one open limit order. */
export const triggerCancelIntent = z.object({ kind: z.literal('trigger.cancel'), order: address, ...common });

/** Start a recurring (DCA) order: inAmount split over numberOfOrders, one every intervalSeconds. */
export const recurringCreateIntent = z.object({
  kind: z.literal('recurring.create'),
  inputMint: address,
  outputMint: address,
  inAmount: amount,
  numberOfOrders: z.number().int().min(2),
  intervalSeconds: z.number().int().min(60),
  minPrice: z.number().positive().optional(),
  maxPrice: z.number().positive().optional(),
  ...common,
});

/** Cancel a recurring order. */
export const recurringCancelIntent = z.object({ kind: z.literal('recurring.cancel'), order: address, ...common });

/** Deposit into or withdraw from Jupiter Lend Earn. */
export const lendDepositIntent = z.object({ kind: z.literal('lend.deposit'), asset: address, amount, ...common });
export const lendWithdrawIntent = z.object({ kind: z.literal('lend.withdraw'), asset: address, amount, ...common });

/** Mint exactly `shares` jlToken base units of an asset's Earn market, paying at most `maxAmount` of the asset. */
export const lendMintIntent = z.object({ kind: z.literal('lend.mint'), asset: address, shares: amount, maxAmount: amount, ...common });

/** Redeem exactly `shares` jlToken base units for the asset they are worth. */
export const lendRedeemIntent = z.object({ kind: z.literal('lend.redeem'), asset: address, shares: amount, ...common });

/** Buy YES or NO contracts of a prediction market with at most maxPriceMicroUsd per contract. */
export const predictionBuyIntent = z.object({
  kind: z.literal('prediction.buy'),
  marketId: z.string().min(1).max(128),
  side: z.enum(['yes', 'no']),
  /** Deposit in base units of the deposit mint (USDC or JupUSD, 6 decimals); at least $5. */
  depositAmount: z.bigint().min(5_000_000n, 'the minimum prediction order is $5 (5,000,000)'),
  depositMint: address.optional(),
  maxPriceMicroUsd: microUsd,
  ...common,
});

/** Sell contracts (micro-contracts, 1e6 = one contract) of a position for at least minPriceMicroUsd each. */
export const predictionSellIntent = z.object({
  kind: z.literal('prediction.sell'),
  positionPubkey: address,
  contractsMicro: amount,
  minPriceMicroUsd: microUsd,
  ...common,
});

/** Sell every contract of a position for at least minPriceMicroUsd each. */
export const predictionClosePositionIntent = z.object({
  kind: z.literal('prediction.closePosition'),
  positionPubkey: address,
  minPriceMicroUsd: microUsd,
  ...common,
});

/** Close an unfilled prediction order. */
export const predictionCloseOrderIntent = z.object({ kind: z.literal('prediction.closeOrder'), orderPubkey: address, ...common });

/** Claim a settled winning position. */
export const predictionClaimIntent = z.object({ kind: z.literal('prediction.claim'), positionPubkey: address, ...common });

/** Send tokens through an invite code (the code is generated by the engine and reported, never logged). */
export const sendIntent = z.object({ kind: z.literal('send'), mint: address, amount, ...common });

/** Claw back an unclaimed invite. */
export const sendClawbackIntent = z.object({ kind: z.literal('send.clawback'), invitePda: address, ...common });

/** Any intent, as strategies return them. decide() output is parsed with this; a bad intent is a StrategyError. */
export const intentSchema = z.discriminatedUnion('kind', [
  swapIntent,
  triggerCreateIntent,
  triggerCancelIntent,
  recurringCreateIntent,
  recurringCancelIntent,
  lendDepositIntent,
  lendWithdrawIntent,
  lendMintIntent,
  lendRedeemIntent,
  predictionBuyIntent,
  predictionSellIntent,
  predictionClosePositionIntent,
  predictionCloseOrderIntent,
  predictionClaimIntent,
  sendIntent,
  sendClawbackIntent,
]);

/** An intent as a strategy writes it (defaults not yet applied). */
export type IntentInput = z.input<typeof intentSchema>;
/** A parsed intent. */
export type Intent = z.output<typeof intentSchema>;
/** The kind of an intent. */
export type IntentKind = Intent['kind'];
/** All intent kinds. */
export const INTENT_KINDS: readonly IntentKind[] = [
  'swap', 'trigger.create', 'trigger.cancel', 'recurring.create', 'recurring.cancel', 'lend.deposit', 'lend.withdraw',
  'lend.mint', 'lend.redeem', 'prediction.buy', 'prediction.sell', 'prediction.closePosition', 'prediction.closeOrder',
  'prediction.claim', 'send', 'send.clawback',
];

/**
 * What an intent is about: with the strategy instance, the kind, the key and the decision window it makes the
 * intent's id. Two intents with the same subject in the same window are the same intent.
 */
export function intentSubject(intent: Intent): string {
  switch (intent.kind) {
    case 'swap':
      // An ExactOut swap of a pair is another intent than the ExactIn one in the same window.
      return `${intent.inputMint}>${intent.outputMint}${intent.swapMode === 'ExactOut' ? ':out' : ''}`;
    case 'trigger.create':
    case 'recurring.create':
      return `${intent.inputMint}>${intent.outputMint}`;
    case 'trigger.cancel':
    case 'recurring.cancel':
      return intent.order;
    case 'lend.deposit':
    case 'lend.withdraw':
    case 'lend.mint':
    case 'lend.redeem':
      return intent.asset;
    case 'prediction.buy':
      return `${intent.marketId}:${intent.side}`;
    case 'prediction.sell':
    case 'prediction.closePosition':
    case 'prediction.claim':
      return intent.positionPubkey;
    case 'prediction.closeOrder':
      return intent.orderPubkey;
    case 'send':
      return intent.mint;
    case 'send.clawback':
      return intent.invitePda;
  }
}
