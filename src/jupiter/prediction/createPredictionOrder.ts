import { z } from 'zod';
import type { CallOptions, JupiterTransport } from '../transport.js';
import { LimitError, SchemaError } from '../errors.js';
import { base64 } from '../schemas.js';
import { JUPUSD_MINT, USDC_MINT } from '../../lib/mints.js';
import { U64_MAX } from '../../lib/amounts.js';
import { PREDICTION_PATH, checkAddress, checkId, contractQuantity, executionSchema, microUsd, microUsdOrNull, txMetaSchema } from './common.js';

/** Smallest buy deposit, in base units of USDC or JupUSD (both 6 decimals): $5. */
export const PREDICTION_MIN_DEPOSIT = 5_000_000n;
/** Mints a buy may deposit. USDC is the service default. */
export const PREDICTION_DEPOSIT_MINTS: readonly string[] = [USDC_MINT, JUPUSD_MINT];

/**
 * A buy: spend `depositAmount` of the deposit mint on YES or NO contracts of `marketId`. The live service takes no
 * price limit in the body (jupiter-api.md §13 item 13: the February 2026 spec's `maxBuyPriceUsd` is gone from the
 * docs and from Jupiter's CLI): a buy is a market order, and the limit it will fill at comes back in the build's
 * `order.maxBuyPriceUsd`, for the caller to check.
 */
export interface CreatePredictionBuyParams {
  isBuy: true;
  ownerPubkey: string;
  marketId: string;
  isYes: boolean;
  /** Base units of `depositMint` (6 decimals); at least 5,000,000 ($5). */
  depositAmount: bigint;
  /** USDC (default) or JupUSD. */
  depositMint?: string | undefined;
}

/**
 * A sell of part of a position: exactly one of `contracts`, `contractsMicro`, `contractsDecimal`. As for buys, no
 * price goes in the body; the floor the sell fills at comes back in `order.minSellPriceUsd`.
 */
export interface CreatePredictionSellParams {
  isBuy: false;
  ownerPubkey: string;
  positionPubkey: string;
  isYes: boolean;
  /** Legacy whole contracts. */
  contracts?: bigint | undefined;
  /** Micro-contracts (1,000,000 = 1 contract). */
  contractsMicro?: bigint | undefined;
  /** Contracts as a decimal string, e.g. "5.777773". */
  contractsDecimal?: string | undefined;
  /** Optional, for a sell of a known market. */
  marketId?: string | undefined;
}

/** Body of POST /orders. */
export type CreatePredictionOrderParams = CreatePredictionBuyParams | CreatePredictionSellParams;

/** The `order` block of a build: quantities are bigint contracts/micro-contracts, every *Usd value micro-USD bigint. */
export const builtOrderSchema = z.object({
  orderPubkey: z.string().nullable(),
  orderAtaPubkey: z.string().nullish(),
  userPubkey: z.string(),
  marketId: z.string(),
  marketIdHash: z.string().optional(),
  positionPubkey: z.string(),
  isBuy: z.boolean(),
  isYes: z.boolean(),
  /** Legacy whole contracts (floored). */
  contracts: contractQuantity,
  contractsMicro: contractQuantity.optional(),
  contractsDecimal: z.string().optional(),
  newContracts: contractQuantity,
  newContractsMicro: contractQuantity.optional(),
  newContractsDecimal: z.string().optional(),
  maxBuyPriceUsd: microUsdOrNull,
  minSellPriceUsd: microUsdOrNull,
  externalOrderId: z.string().nullish(),
  orderCostUsd: microUsd,
  newAvgPriceUsd: microUsd,
  newSizeUsd: microUsd,
  newPayoutUsd: microUsd,
  payoutUsd: microUsd.optional(),
  estimatedProtocolFeeUsd: microUsd,
  estimatedVenueFeeUsd: microUsd,
  estimatedIntegratorFeeUsd: microUsd.optional(),
  estimatedTotalFeeUsd: microUsd,
  slippageBps: z.number().int().nonnegative().optional(),
  maxSlippageBps: z.number().int().nonnegative().nullish(),
});
/** A parsed built order. */
export type BuiltPredictionOrder = z.output<typeof builtOrderSchema>;

/**
 * CreateOrderResponse, returned by POST /orders and the position-closing DELETEs. `transaction` is the unsigned
 * base64 transaction (nullable in the spec); `execution.context` goes unchanged to POST /execute.
 */
export const createOrderResponseSchema = z.object({
  transaction: base64.nullable(),
  txMeta: txMetaSchema.nullable(),
  externalOrderId: z.string().nullish(),
  requiredSigners: z.array(z.string()).optional(),
  execution: executionSchema.nullish(),
  /** `atomic_swap` for Jupiter Forecast; null for keeper-filled orders. */
  executionModel: z.string().nullish(),
  settlement: z.string().nullish(),
  jupiterSwapRequestId: z.string().nullish(),
  order: builtOrderSchema,
});
/** A parsed order build. */
export type PredictionOrderBuild = z.output<typeof createOrderResponseSchema>;

/** An order build known to carry a transaction to sign (the functions in this folder guarantee it). */
export type SignablePredictionOrderBuild = PredictionOrderBuild & { transaction: string; txMeta: NonNullable<PredictionOrderBuild['txMeta']> };

const ENDPOINT = 'prediction.createOrder';

/** Checks the documented and client-side rules of a create body; throws LimitError naming the broken rule. */
export function checkCreatePredictionOrder(p: CreatePredictionOrderParams): void {
  const fail = (rule: string, msg: string): never => {
    throw new LimitError(ENDPOINT, rule, msg);
  };
  checkAddress(ENDPOINT, 'ownerPubkey', p.ownerPubkey);
  if (p.isBuy) {
    checkId(ENDPOINT, 'marketId', p.marketId);
    if (p.depositAmount < PREDICTION_MIN_DEPOSIT) fail('prediction.depositAmount.min', `depositAmount must be at least ${PREDICTION_MIN_DEPOSIT} ($5), got ${p.depositAmount}`);
    if (p.depositAmount > U64_MAX) fail('prediction.depositAmount.u64', 'depositAmount does not fit in a u64');
    if (p.depositMint !== undefined && !PREDICTION_DEPOSIT_MINTS.includes(p.depositMint)) {
      fail('prediction.depositMint.allowed', `depositMint must be USDC or JupUSD, got ${JSON.stringify(p.depositMint)}`);
    }
    return;
  }
  checkAddress(ENDPOINT, 'positionPubkey', p.positionPubkey);
  const given = [p.contracts, p.contractsMicro, p.contractsDecimal].filter((v) => v !== undefined);
  if (given.length !== 1) fail('prediction.contracts.exactlyOne', `give exactly one of contracts, contractsMicro, contractsDecimal (got ${given.length})`);
  for (const [name, v] of [['contracts', p.contracts], ['contractsMicro', p.contractsMicro]] as const) {
    if (v !== undefined && (v <= 0n || v > U64_MAX)) fail('prediction.contracts.positive', `${name} must be a positive u64, got ${v}`);
  }
  if (p.contractsDecimal !== undefined) {
    if (!/^\d+(\.\d{1,6})?$/.test(p.contractsDecimal)) fail('prediction.contractsDecimal.format', `contractsDecimal must be a decimal with at most 6 places, got ${JSON.stringify(p.contractsDecimal)}`);
    if (!/[1-9]/.test(p.contractsDecimal)) fail('prediction.contracts.positive', 'contractsDecimal must be greater than 0');
  }
}

/** Throws SchemaError when a build has no transaction to sign (the spec allows null; nothing could be done with it). */
export function requireSignable(endpoint: string, build: PredictionOrderBuild): SignablePredictionOrderBuild {
  const { transaction, txMeta } = build;
  if (!transaction) throw new SchemaError(endpoint, [{ path: 'transaction', message: 'no transaction to sign although an owner was given' }]);
  if (!txMeta) throw new SchemaError(endpoint, [{ path: 'txMeta', message: 'missing although a transaction was returned' }]);
  return { ...build, transaction, txMeta };
}

/**
 * POST /prediction/v1/orders: builds an unsigned transaction that places a buy (deposit in, contracts out) or a
 * partial sell, with the body the live service takes (no price limit: see CreatePredictionBuyParams). Amounts are
 * sent as digit strings. Retried on transient failures: it only builds.
 */
export async function createPredictionOrder(
  client: JupiterTransport,
  params: CreatePredictionOrderParams,
  options: CallOptions = {},
): Promise<SignablePredictionOrderBuild> {
  checkCreatePredictionOrder(params);
  const body = params.isBuy
    ? {
        ownerPubkey: params.ownerPubkey,
        marketId: params.marketId,
        isYes: params.isYes,
        isBuy: true,
        depositAmount: params.depositAmount,
        depositMint: params.depositMint ?? USDC_MINT,
      }
    : {
        ownerPubkey: params.ownerPubkey,
        positionPubkey: params.positionPubkey,
        marketId: params.marketId,
        isYes: params.isYes,
        isBuy: false,
        contracts: params.contracts,
        contractsMicro: params.contractsMicro,
        contractsDecimal: params.contractsDecimal,
      };
  const build = await client.request({
    endpoint: ENDPOINT,
    method: 'POST',
    path: `${PREDICTION_PATH}/orders`,
    body,
    schema: createOrderResponseSchema,
    signal: options.signal,
  });
  return requireSignable(ENDPOINT, build);
}
