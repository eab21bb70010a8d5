import { createHash, randomBytes } from 'node:crypto';
import { ComputeBudgetProgram, PublicKey, VersionedTransaction, type Keypair, type TransactionInstruction } from '@solana/web3.js';
import { JUPUSD_MINT, USDC_MINT } from '../../lib/mints.js';
import type { SimToken } from '../catalog.js';
import type { LedgerRecord, SubmitOutcome } from '../chain/chain.js';
import { instructionHash, type Ticket } from '../chain/tickets.js';
import { describeTxError } from '../chain/txErrors.js';
import type { Venue } from '../venue.js';
import { requestId, type Reply } from './common.js';
import type { EscrowBook } from './escrow.js';
import { affordable, CONTRACT_STEP, contractForms, MICRO, walk, walkCost, fillFee, type HistoryRow, type SimPosition, type SimPredictionOrder } from './predictionBook.js';
import { PredictionKeeper } from './predictionKeeper.js';
import { MarketBook, type SimMarket } from './predictionMarkets.js';
import { PREDICTION_PROGRAM, vaultAddress } from '../../jupiter/programs/prediction.js';
import { encodeOrderAccount, encodePositionAccount, encodeVaultAccount } from '../../jupiter/programs/predictionAccounts.js';
import { marketIdHash, orderAddress, positionAddress } from './predictionSeeds.js';
import type { CreateOrderBody, ExecuteBody } from '../http/requests/prediction.js';
import { PredictionTx } from './predictionTx.js';

/** The service's minimum buy: $5 (jupiter-api.md §8: `400 Minimum order is $5`). */
export const MIN_DEPOSIT = 5_000_000n;
/** Slippage the venue puts on a market order's price limit, bps (the build reports the limit it chose). */
export const ORDER_SLIPPAGE_BPS = 200;
/** Lowest and highest price a limit may take, micro-USD ($0.01 to $0.99). */
const MIN_PRICE = 10_000n;
const MAX_PRICE = 990_000n;
/** How long execute accepts a built transaction and replays its answer (sim ms). */
const BUILD_TTL_MS = 120_000;
/** Program error codes a refused settlement lands with (the simulator's own numbering). */
export const ERR_MARKET_CLOSED = 6010;
export const ERR_ORDER_NOT_OPEN = 6011;
export const ERR_NOT_ENOUGH_CONTRACTS = 6012;
export const ERR_ALREADY_CLAIMED = 6013;

/** A transaction the desk built, as execute accepts it. */
interface Build {
  ticket: Ticket;
  reply?: Reply;
  expiresAtMs: number;
}

/** The prediction API's error body (Stripe-like ErrorResponse). */
export function predictionError(status: Reply['status'], message: string, code?: string, param?: string): Reply {
  const type = status === 401 ? 'authentication_error' : status === 429 ? 'rate_limit_error' : status >= 500 ? 'api_error' : 'invalid_request_error';
  return { status, body: { type, message, ...(code ? { code } : {}), ...(param ? { param } : {}), request_id: `req_${randomBytes(12).toString('hex')}` } };
}

/**
 * The Prediction Market API of the simulator: the markets (predictionMarkets.ts), orders whose deposit goes into an
 * escrow of the prediction program, positions, claims, and the keeper network that fills orders against the book,
 * closes what it cannot fill, settles markets and auto-claims (predictionKeeper.ts). Every move of money is a real
 * transaction: the owner's own (signed by the owner, co-signed by the keeper through a ticket at settlement) or the
 * keeper's, recorded on the ledger as prediction-order, -fill, -close and -claim.
 */
export class PredictionDesk {
  readonly markets: MarketBook;
  readonly tx: PredictionTx;
  readonly keeper: PredictionKeeper;
  /** Every order by account, ended ones too (their status stays readable). */
  readonly orders = new Map<string, SimPredictionOrder>();
  /** Orders pending or open: what the keeper works. */
  readonly live = new Set<SimPredictionOrder>();
  readonly positions = new Map<string, SimPosition>();
  /** Positions by market, for settling a market. */
  readonly positionsOf = new Map<SimMarket, Set<SimPosition>>();
  /** Newest last. */
  readonly history: HistoryRow[] = [];
  private readonly builds = new Map<string, Build>();
  private nextOrderId = 1_906_000;

  constructor(
    readonly venue: Venue,
    readonly escrows: EscrowBook,
  ) {
    this.markets = new MarketBook(venue.seed, venue.clock, venue.prices, (s) => venue.resolveToken(s));
    this.tx = new PredictionTx(venue, escrows);
    for (const mint of [USDC_MINT, JUPUSD_MINT]) this.openVault(venue.token(mint)!);
    this.keeper = new PredictionKeeper(this);
    venue.registerKeeper(this.keeper);
    this.markets.advance();
  }

  /** POST /orders: a buy (deposit into the order's escrow) or a sell of a position's contracts. */
  create(b: CreateOrderBody): Reply {
    this.refresh();
    const owner = new PublicKey(b.ownerPubkey);
    return b.isBuy ? this.buy(owner, b) : this.sell(owner, b);
  }

  /** DELETE /orders: the owner's transaction closing an open order, refunding what its escrow holds. */
  closeOrder(ownerPubkey: string, orderPubkey: string): Reply {
    this.refresh();
    const o = this.orders.get(orderPubkey);
    if (!o || o.phase === 'pending') return predictionError(404, 'Order not found', 'order_not_found', 'orderPubkey');
    if (!o.owner.equals(new PublicKey(ownerPubkey))) return predictionError(400, 'Order does not belong to ownerPubkey', 'owner_mismatch', 'ownerPubkey');
    if (o.phase !== 'open') return predictionError(400, 'Order is already closed', 'order_closed', 'orderPubkey');
    const record: LedgerRecord = { kind: 'prediction-close', wallet: ownerPubkey, requestId: null, inputMint: null, inputAmount: null, outputMint: o.escrow ? o.position.mint.mint : null, outputAmount: o.escrow ? o.remaining : null };
    const built = this.build(o.owner, this.tx.close(o, true), record, () => (o.phase === 'open' ? undefined : ERR_ORDER_NOT_OPEN), (signature, slot) => this.keeper.endOrder(o, 'closed', signature, slot));
    o.holdUntilMs = Math.max(o.holdUntilMs, built.holdUntilMs);
    return { status: 200, body: { transaction: built.transaction, txMeta: built.txMeta, requiredSigners: built.requiredSigners, execution: built.execution, orderPubkey: o.address } };
  }

  /** POST /positions/{pubkey}/claim: $1 a winning contract, no fee; 400 before the market settles. */
  claim(positionPubkey: string, ownerPubkey: string): Reply {
    this.refresh();
    const p = this.positions.get(positionPubkey);
    if (!p || !p.opened) return predictionError(404, 'Position not found', 'position_not_found', 'positionPubkey');
    if (!p.owner.equals(new PublicKey(ownerPubkey))) return predictionError(400, 'Position does not belong to ownerPubkey', 'owner_mismatch', 'ownerPubkey');
    const result = p.market.status === 'closed' ? p.market.latent.result : null;
    if (result === null) return predictionError(400, 'Market not settled yet', 'market_not_settled');
    if (p.claimed) return predictionError(400, 'Position already claimed', 'already_claimed');
    if ((result === 'yes') !== p.isYes || p.lost) return predictionError(400, 'Position did not win: losing contracts pay nothing', 'position_lost');
    if (p.contracts === 0n) return predictionError(400, 'Position holds no contracts', 'nothing_to_claim');
    const record: LedgerRecord = { kind: 'prediction-claim', wallet: ownerPubkey, requestId: null, inputMint: null, inputAmount: null, outputMint: p.mint.mint, outputAmount: p.contracts };
    const built = this.build(p.owner, this.tx.claim(p, true), record, () => (p.claimed || p.lost ? ERR_ALREADY_CLAIMED : undefined), (signature, slot) => this.keeper.settleClaim(p, signature, slot));
    p.claimHoldUntilMs = Math.max(p.claimHoldUntilMs, built.holdUntilMs);
    return {
      status: 200,
      body: {
        transaction: built.transaction,
        txMeta: built.txMeta,
        position: { positionPubkey: p.address, marketPubkey: this.marketAddress(p.market), userPubkey: p.owner.toBase58(), ownerPubkey: p.owner.toBase58(), isYes: p.isYes, ...contractForms(p.contracts), payoutAmountUsd: p.contracts.toString() },
      },
    };
  }

  /** DELETE /positions/{pubkey}: a sell of every contract not already being sold. */
  closePosition(positionPubkey: string, ownerPubkey: string, slippageBps = ORDER_SLIPPAGE_BPS): Reply {
    this.refresh();
    const p = this.positions.get(positionPubkey);
    if (!p || !p.opened) return predictionError(404, 'Position not found', 'position_not_found', 'positionPubkey');
    return this.sell(new PublicKey(ownerPubkey), { isBuy: false, ownerPubkey, positionPubkey, isYes: p.isYes, contractsMicro: p.contracts - p.reserved }, slippageBps);
  }

  /** DELETE /positions: for every open position, a sell (market open) or a claim (won, unclaimed). */
  closeAll(ownerPubkey: string, slippageBps: number): Reply {
    this.refresh();
    const data: unknown[] = [];
    for (const p of this.openPositions(ownerPubkey)) {
      const claimable = p.market.status === 'closed' && !p.claimed && !p.lost && (p.market.latent.result === 'yes') === p.isYes;
      const reply = claimable ? this.claim(p.address, ownerPubkey) : p.contracts > p.reserved && this.markets.tradable(p.market) ? this.closePosition(p.address, ownerPubkey, slippageBps) : undefined;
      if (reply?.status === 200) data.push(reply.body);
    }
    return { status: 200, body: { data } };
  }

  /**
   * POST /execute (`{status, signature, error}`) and the CLI's POST /orders/execute (`{signature}`): settles a
   * transaction the desk built, once; the same bytes get the same answer.
   */
  execute(b: ExecuteBody, cliShape: boolean): Reply {
    this.refresh();
    let tx: VersionedTransaction;
    try {
      tx = VersionedTransaction.deserialize(Buffer.from(b.signedTransaction, 'base64'));
    } catch {
      return predictionError(400, 'signedTransaction is not a serialized transaction', 'invalid_transaction', 'signedTransaction');
    }
    const key = messageKey(tx.message.serialize());
    const build = this.builds.get(key);
    if (!build) return predictionError(400, 'Transaction not found: it was not built by this service or has expired', 'transaction_not_found', 'signedTransaction');
    if (!build.reply) {
      if (!this.venue.chain.signaturesValid(tx, [build.ticket.cosigner.publicKey])) return predictionError(400, 'Transaction is not signed by its owner', 'invalid_signature', 'signedTransaction');
      build.reply = executeReply(this.venue.settle(tx, this.venue.tickets.get(build.ticket.id) ? build.ticket : undefined), b.requestId);
    }
    const body = build.reply.body as { status: string; signature: string | null; error: string | null };
    if (!cliShape) return build.reply;
    return body.status === 'Success' ? { status: 200, body: { signature: body.signature } } : predictionError(400, body.error ?? 'Transaction failed', 'execution_failed');
  }

  /** The owner's positions that are still open (not claimed, not lost, holding contracts or orders). */
  openPositions(ownerPubkey: string): SimPosition[] {
    return [...this.positions.values()].filter((p) => p.owner.toBase58() === ownerPubkey && p.opened && !p.claimed && !p.lost && (p.contracts > 0n || p.openOrders > 0));
  }

  /** The address a market's orders and positions name it by (a PDA of its id hash: the simulator's own). */
  marketAddress(m: SimMarket): string {
    return PublicKey.findProgramAddressSync([Buffer.from('market'), Buffer.from(marketIdHash(m.marketId), 'hex')], PREDICTION_PROGRAM)[0].toBase58();
  }

  /** Writes a position's account as the program keeps it. */
  writePosition(p: SimPosition): void {
    const s = (ms: number) => BigInt(Math.floor(ms / 1000));
    this.escrows.writeState(PREDICTION_PROGRAM, p.key, encodePositionAccount({
      owner: p.owner, marketId: p.market.marketId, isYes: p.isYes, payoutClaimed: p.claimed, payoutClaimedUsd: p.claimedUsd, openedAt: s(p.openedAtMs), contracts: p.contracts,
      totalCostUsd: p.totalCostUsd, openOrders: p.openOrders, feesPaidUsd: p.feesPaidUsd, realizedPnlUsd: p.realizedPnlUsd, updatedAt: s(p.updatedAtMs), bump: 255, unitVersion: 1, payer: p.owner,
    }));
  }

  /** Writes an order's account as the program keeps it. */
  writeOrder(o: SimPredictionOrder): void {
    const p = o.position;
    this.escrows.writeState(PREDICTION_PROGRAM, o.key, encodeOrderAccount({
      owner: o.owner, position: p.key, status: o.phase === 'open' && o.filledContracts > 0n ? 'partiallyFilled' : 'pending', marketId: p.market.marketId, isYes: p.isYes, isBuy: o.isBuy,
      createdAt: BigInt(Math.floor(o.createdAtMs / 1000)), contracts: o.contracts, maxFillPriceUsd: o.limit, filledAt: BigInt(Math.floor((o.filledAtMs ?? 0) / 1000)), filledContracts: o.filledContracts,
      avgFillPriceUsd: o.filledContracts > 0n ? (o.costUsd * MICRO) / o.filledContracts : 0n, orderId: o.orderId, externalOrderId: o.externalOrderId, bump: 255, orderType: 'market',
      payer: o.owner, integrator: PublicKey.default, integratorFeeBps: 0, unitVersion: 1,
    }));
  }

  /** Opens the markets due and settles those past their close (also done by the keeper on its own). */
  refresh(): void {
    try {
      this.keeper.resolve(this.markets.advance());
    } catch (err) {
      // Left for the keeper's next run; a request is not failed for it.
      this.venue.lastKeeperError = `prediction: ${err instanceof Error ? err.message : String(err)}`;
    }
    const now = this.venue.clock.now();
    for (const [key, b] of this.builds) if (b.expiresAtMs < now) this.builds.delete(key);
  }

  private buy(owner: PublicKey, b: CreateOrderBody): Reply {
    if (b.marketId === undefined) return predictionError(400, 'marketId is required for a buy', 'parameter_missing', 'marketId');
    if (b.isYes === undefined) return predictionError(400, 'isYes is required', 'parameter_missing', 'isYes');
    if (b.depositAmount === undefined) return predictionError(400, 'depositAmount is required for a buy', 'parameter_missing', 'depositAmount');
    const m = this.markets.market(b.marketId);
    if (!m) return predictionError(404, `Market not found: ${b.marketId}`, 'market_not_found', 'marketId');
    if (!this.markets.tradable(m)) return predictionError(400, 'Market is not open for trading', 'market_closed', 'marketId');
    const mint = b.depositMint ?? USDC_MINT;
    if (mint !== USDC_MINT && mint !== JUPUSD_MINT) return predictionError(400, 'depositMint must be USDC or JupUSD', 'invalid_mint', 'depositMint');
    const token = this.venue.token(mint)!;
    if (b.depositAmount < MIN_DEPOSIT) return predictionError(400, 'Minimum order is $5', 'minimum_order', 'depositAmount');
    if (this.venue.balance(owner, mint) < b.depositAmount) return predictionError(400, `Insufficient ${token.symbol} balance for a deposit of ${b.depositAmount}`, 'insufficient_funds', 'depositAmount');
    const levels = this.markets.levels(m, b.isYes, true);
    if (levels.length === 0) return predictionError(400, `No ${b.isYes ? 'YES' : 'NO'} liquidity in this market`, 'no_liquidity', 'isYes');
    const limit = b.maxBuyPriceUsd ?? clampPrice(ceilCent((levels[0]!.price * BigInt(10_000 + ORDER_SLIPPAGE_BPS)) / 10_000n));
    const position = this.positionFor(owner, m, b.isYes, token);
    if (typeof position === 'string') return predictionError(400, position, 'settlement_mint_mismatch', 'depositMint');
    const est = affordable(levels.filter((l) => l.price <= limit), b.depositAmount);
    const contracts = est.parts.reduce((s, x) => s + x.contracts, 0n);
    const o = this.newOrder(owner, position, true, b.depositAmount, contracts, limit);
    return this.orderReply(o, contracts, est.cost, est.fee, position.contracts + contracts, position.totalCostUsd + est.cost);
  }

  private sell(owner: PublicKey, b: CreateOrderBody, slippageBps = ORDER_SLIPPAGE_BPS): Reply {
    if (b.positionPubkey === undefined) return predictionError(400, 'positionPubkey is required for a sell', 'parameter_missing', 'positionPubkey');
    const p = this.positions.get(b.positionPubkey);
    if (!p || !p.opened) return predictionError(404, 'Position not found', 'position_not_found', 'positionPubkey');
    if (!p.owner.equals(owner)) return predictionError(400, 'Position does not belong to ownerPubkey', 'owner_mismatch', 'ownerPubkey');
    if (b.isYes !== undefined && b.isYes !== p.isYes) return predictionError(400, `isYes does not match the position (a ${p.isYes ? 'YES' : 'NO'} position)`, 'side_mismatch', 'isYes');
    const forms = [b.contracts === undefined ? undefined : b.contracts * MICRO, b.contractsMicro, b.contractsDecimal === undefined ? undefined : decimalMicro(b.contractsDecimal)].filter((v) => v !== undefined);
    if (forms.length !== 1) return predictionError(400, 'Give exactly one of contracts, contractsMicro, contractsDecimal', 'parameter_invalid', 'contracts');
    const contracts = (forms[0]! / CONTRACT_STEP) * CONTRACT_STEP;
    if (contracts <= 0n) return predictionError(400, 'contracts must be at least 0.01', 'parameter_invalid', 'contracts');
    if (contracts > p.contracts - p.reserved) return predictionError(400, `Position holds ${p.contracts - p.reserved} micro-contracts available to sell, fewer than ${contracts}`, 'insufficient_contracts', 'contracts');
    if (!this.markets.tradable(p.market)) return predictionError(400, 'Market is not open for trading', 'market_closed');
    const levels = this.markets.levels(p.market, p.isYes, false);
    if (levels.length === 0) return predictionError(400, `No ${p.isYes ? 'YES' : 'NO'} bids in this market`, 'no_liquidity');
    const limit = b.minSellPriceUsd ?? clampPrice(floorCent((levels[0]!.price * BigInt(10_000 - slippageBps)) / 10_000n));
    const parts = walk(levels.filter((l) => l.price >= limit), contracts) ?? [];
    const gross = walkCost(parts);
    const o = this.newOrder(owner, p, false, 0n, contracts, limit, slippageBps);
    const basis = p.contracts === 0n ? 0n : (p.totalCostUsd * contracts) / p.contracts;
    return this.orderReply(o, contracts, gross, fillFee(parts), p.contracts - contracts, p.totalCostUsd - basis);
  }

  /**
   * A new order: (buys) its escrow opened before the owner signs. Its account is written when the owner's
   * transaction lands (keeper.openOrder), as the program's create_order creates it: until then nothing exists at its
   * address (the guard refuses a new order whose account does).
   */
  private newOrder(owner: PublicKey, position: SimPosition, isBuy: boolean, deposit: bigint, contracts: bigint, limit: bigint, slippageBps = ORDER_SLIPPAGE_BPS): SimPredictionOrder {
    const now = this.venue.clock.now();
    const externalOrderId = randomBytes(16).toString('hex');
    const key = orderAddress(owner, externalOrderId).address;
    const o: SimPredictionOrder = {
      key, address: key.toBase58(), owner, position, isBuy, externalOrderId, orderId: `order-${this.nextOrderId++}`,
      escrow: isBuy ? this.escrows.openEscrow('prediction', key, position.mint, owner) : null,
      deposit, remaining: deposit, contracts, filledContracts: 0n, costUsd: 0n, feeUsd: 0n, limit, slippageBps, phase: 'pending',
      createdAtMs: now, updatedAtMs: now, filledAtMs: null, fillFromMs: Infinity, expiresAtMs: Infinity, holdUntilMs: 0, pendingUntilMs: now, events: [], requestId: requestId(now),
    };
    this.orders.set(o.address, o);
    this.live.add(o);
    return o;
  }

  /** The build of an order: its transaction, the keeper's ticket to co-sign it, and the CreateOrderResponse. */
  private orderReply(o: SimPredictionOrder, contracts: bigint, cost: bigint, fee: bigint, newContracts: bigint, newCost: bigint): Reply {
    const p = o.position;
    const record: LedgerRecord = { kind: 'prediction-order', wallet: o.owner.toBase58(), requestId: o.requestId, inputMint: o.isBuy ? p.mint.mint : null, inputAmount: o.isBuy ? o.deposit : null, outputMint: null, outputAmount: null };
    const refuse = () => (!this.markets.tradable(p.market) ? ERR_MARKET_CLOSED : !o.isBuy && o.contracts > p.contracts - p.reserved ? ERR_NOT_ENOUGH_CONTRACTS : o.phase !== 'pending' ? ERR_ORDER_NOT_OPEN : undefined);
    const gasPayer = this.tx.orderFeePayer();
    const built = this.build(o.owner, this.tx.create(o, contracts), record, refuse, (signature, slot) => this.keeper.openOrder(o, signature, slot), gasPayer);
    o.pendingUntilMs = built.holdUntilMs;
    return {
      status: 200,
      body: {
        transaction: built.transaction,
        txMeta: built.txMeta,
        externalOrderId: o.externalOrderId,
        requiredSigners: built.requiredSigners,
        isGasless: gasPayer !== undefined,
        execution: built.execution,
        executionModel: null,
        settlement: null,
        jupiterSwapRequestId: null,
        order: {
          orderPubkey: o.address, orderAtaPubkey: o.escrow?.toBase58() ?? null, userPubkey: o.owner.toBase58(), marketId: p.market.marketId, marketIdHash: marketIdHash(p.market.marketId),
          positionPubkey: p.address, isBuy: o.isBuy, isYes: p.isYes, ...contractForms(contracts), ...contractForms(newContracts, 'newContracts'),
          maxBuyPriceUsd: o.isBuy ? o.limit.toString() : null, minSellPriceUsd: o.isBuy ? null : o.limit.toString(), externalOrderId: o.externalOrderId,
          orderCostUsd: cost.toString(), newAvgPriceUsd: (newContracts > 0n ? (newCost * MICRO) / newContracts : 0n).toString(), newSizeUsd: newCost.toString(), newPayoutUsd: newContracts.toString(),
          payoutUsd: (o.isBuy ? contracts : cost - fee).toString(), estimatedProtocolFeeUsd: '0', estimatedVenueFeeUsd: fee.toString(), estimatedIntegratorFeeUsd: '0', estimatedTotalFeeUsd: fee.toString(),
          slippageBps: o.slippageBps, maxSlippageBps: null,
        },
      },
    };
  }

  /**
   * Builds an owner transaction whose program instructions the keeper co-signs at settlement (a ticket: through
   * execute or RPC alike), provided `refuse` finds nothing wrong then; `onLanded` runs once it lands. A `gasPayer`
   * (a gasless order) is the fee payer and signs before the transaction is returned; the owner otherwise.
   */
  private build(owner: PublicKey, instructions: TransactionInstruction[], record: LedgerRecord, refuse: () => number | undefined, onLanded: (signature: string, slot: bigint) => void, gasPayer?: Keypair) {
    const v = this.venue;
    const now = v.clock.now();
    const { tx, lastValidBlockHeight } = v.chain.buildTransaction(gasPayer?.publicKey ?? owner, instructions);
    if (gasPayer) tx.sign([gasPayer]);
    const holdUntilMs = now + v.clock.msUntilBlockHeight(lastValidBlockHeight + 1n);
    const id = requestId(now);
    const product = instructions.filter((ix) => !ix.programId.equals(ComputeBudgetProgram.programId));
    const ticket: Ticket = {
      id: `prediction:${id}`,
      cosigner: v.keeper,
      required: product.map(instructionHash),
      expiresAtMs: holdUntilMs,
      record: { ...record, requestId: record.requestId ?? id },
      preSettle: () => {
        const code = refuse();
        return code === undefined ? undefined : { failInstruction: instructions.findIndex((ix) => ix.programId.equals(PREDICTION_PROGRAM)), code };
      },
      onLanded,
    };
    v.tickets.add(ticket);
    this.builds.set(messageKey(tx.message.serialize()), { ticket, expiresAtMs: Math.max(holdUntilMs, now + BUILD_TTL_MS) });
    return {
      transaction: Buffer.from(tx.serialize()).toString('base64'),
      txMeta: { blockhash: tx.message.recentBlockhash, lastValidBlockHeight: Number(lastValidBlockHeight) },
      requiredSigners: [owner.toBase58(), v.keeper.publicKey.toBase58()],
      execution: { endpoint: '/api/v1/execute', context: { type: 'create_order', requestId: id } },
      holdUntilMs,
    };
  }

  /** The owner's position in a market and side, created (unopened) when new; an error text when its mint differs. */
  private positionFor(owner: PublicKey, m: SimMarket, isYes: boolean, token: SimToken): SimPosition | string {
    const { address: key } = positionAddress(owner, m.marketId, isYes);
    const known = this.positions.get(key.toBase58());
    if (known && !known.claimed && !known.lost) {
      // Its stable is fixed while it holds contracts or has an order, landed or not (a built order's escrow is open).
      const busy = known.contracts > 0n || [...this.live].some((o) => o.position === known);
      if (known.mint.mint !== token.mint && busy) return `This position settles in ${known.mint.symbol}; deposit ${known.mint.symbol}`;
      known.mint = token;
      return known;
    }
    const now = this.venue.clock.now();
    const p: SimPosition = {
      key, address: key.toBase58(), owner, market: m, isYes, mint: token, contracts: 0n, reserved: 0n, totalCostUsd: 0n, feesPaidUsd: 0n, realizedPnlUsd: 0n,
      openOrders: 0, claimed: false, claimedUsd: 0n, lost: false, opened: false, openedAtMs: now, updatedAtMs: now, claimHoldUntilMs: 0,
    };
    this.positions.set(p.address, p);
    let ofMarket = this.positionsOf.get(m);
    if (!ofMarket) this.positionsOf.set(m, (ofMarket = new Set()));
    ofMarket.add(p);
    return p;
  }

  /** The vault of a settlement mint: its account and its token account (the keeper its delegate), listed as an escrow. */
  private openVault(token: SimToken): void {
    const mint = new PublicKey(token.mint);
    const { address, bump } = vaultAddress(mint);
    this.escrows.writeState(PREDICTION_PROGRAM, address, encodeVaultAccount({
      settlementMint: mint, currentContracts: 0n, currentOpenOrders: 0, globalMaxContracts: 1n << 62n, positionMaxContracts: 1n << 50n, positionMaxOrders: 64,
      settlementDelaySeconds: 0n, depositsDisabled: false, withdrawalsDisabled: false, protocolFeeBps: 0, bump, tradingDisabled: false, unitVersion: 1,
    }));
    this.escrows.openEscrow('prediction', address, token, address);
  }
}

/** The answer of POST /execute for a settlement. */
function executeReply(outcome: SubmitOutcome, id: string | undefined): Reply {
  const body = (status: 'Success' | 'Failed', signature: string | null, error: string | null) => ({ status: 200 as const, body: { status, signature, error, ...(id ? { requestId: id } : {}) } });
  switch (outcome.kind) {
    case 'landed':
      return body('Success', outcome.signature, null);
    case 'duplicate':
      return outcome.status.err === null ? body('Success', outcome.signature, null) : body('Failed', outcome.signature, describeTxError(outcome.status.err));
    case 'landed-failed':
      return body('Failed', outcome.signature, describeTxError(outcome.err));
    case 'rejected':
      return body('Failed', null, describeTxError(outcome.err));
  }
}

function messageKey(message: Uint8Array): string {
  return createHash('sha256').update(message).digest('base64');
}

function ceilCent(micro: bigint): bigint {
  return ((micro + 9_999n) / 10_000n) * 10_000n;
}

function floorCent(micro: bigint): bigint {
  return (micro / 10_000n) * 10_000n;
}

function clampPrice(micro: bigint): bigint {
  return micro < MIN_PRICE ? MIN_PRICE : micro > MAX_PRICE ? MAX_PRICE : micro;
}

/** "5.77" contracts as micro-contracts. */
function decimalMicro(s: string): bigint {
  const [whole = '0', frac = ''] = s.split('.');
  return BigInt(whole) * MICRO + BigInt(frac.padEnd(6, '0'));
}
