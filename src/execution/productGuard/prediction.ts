import { PublicKey } from '@solana/web3.js';
import { ProgramLayoutError, type RawInstruction } from '../../jupiter/programs/instruction.js';
import { decodeAggregatorRoute, decodePredictionInstruction, marketIdHash, orderAtaAddress, PREDICTION_PROGRAM, vaultAddress, type CREATE_ORDER_ACCOUNTS, type PredictionInstruction } from '../../jupiter/programs/prediction.js';
import { decodeMarketResultAccount, decodeOrderAccount, decodePositionAccount, decodeVaultAccount, orderAccountSpace, positionAccountSpace } from '../../jupiter/programs/predictionAccounts.js';
import { JUPUSD_MINT, USDC_MINT } from '../../lib/mints.js';
import type { Intent } from '../../sdk/intents.js';
import { PROGRAM_IDS } from '../../solana/programs.js';
import type { ProductCheck, ProductFunding, TopInstruction } from '../../solana/guardTypes.js';
import { ata, balanceOf, offCurve, stateAccount, Terms, theInstruction, tokenAccount, type AccountAt } from './terms.js';

/*
 * What the guard can hold a prediction order to, and what it cannot. The program's generated client publishes the
 * layouts, the vault's seeds (["vault", settlement mint]) and the order escrow's (the order's associated token
 * account of the settlement mint, classic token program); it publishes no seeds for the order, position and
 * market-result accounts. So the guard ties the escrow to the order account the instruction names, and the order
 * account to a program (it must be off the ed25519 curve, so no one holds a key to it) and to nobody yet (it must not
 * exist before the order: not the pooled vault, not another order); a position it reads from the chain when it
 * exists (a position's owner, market and side are in its account), and a new position account it cannot tie to the
 * wallet, the market or the side. A claim's market result it reads and ties to the position's market. A buy's
 * contract count is the venue's estimate of what the deposit buys at the book: the program spends at most the
 * deposit at no more than the limit, and those two the guard holds to the intent.
 *
 * `create_order` comes in two known layouts (src/jupiter/programs/prediction.ts): the IDL v0.10.0 one names the
 * market by its id, which is held to the intent's; the market-hash one (a live order's) names it by the API's hash of
 * the id (marketIdHash: sha256("market:" + id), first 16 bytes), which the guard derives from the intent's id; its
 * slippage is taken as widening the price limit. A buy paid in one settlement stable and settled in the
 * other is funded by one aggregator route in the same transaction (ProductFunding): its input is the wallet's
 * deposit of the intent's amount, its output lands in the account the order pays from, and the order deposits what
 * that swap gives, less at most FUNDING_BOUND_BPS. No other prediction order may carry a swap.
 *
 * A gasless order (the API's `isGasless`) has Jupiter's gas payer as the fee payer and as create_order's `payer`,
 * which pays the rent of the order, its escrow, a new position and the wallet's settlement account: the policy lets
 * that account pay the fee (GuardPolicy.sponsoredFees) and the check accepts it as the payer; everything else is
 * held as in any order, the wallet still the owner, the signer of its deposit and the only source of it.
 */

const PROGRAM = PREDICTION_PROGRAM.toBase58();
const AGGREGATOR = PROGRAM_IDS.jupiterV6;
/** Contracts are sold in steps of 0.01 contract (jupiter-api.md §8: fills are floored to 0.01), in micro-contracts. */
const CONTRACT_STEP = 10_000n;
const ORDER_SPACE = orderAccountSpace();
const POSITION_SPACE = positionAccountSpace();
/** The settlement stables (both $1, 6 decimals): a buy may be funded by a swap from one into the other only. */
const SETTLEMENT_STABLES: ReadonlySet<string> = new Set([USDC_MINT, JUPUSD_MINT]);
/**
 * Most a stable-to-stable swap funding a buy may lose, bps of the deposit: what the order deposits in the settlement
 * mint must be at least the deposit less this. The captured live buy lost 6.6 bps (5 USDC, 4.996705 JupUSD).
 */
export const FUNDING_BOUND_BPS = 50n;

/** A `create_order` in either known layout, as the checks read it. */
interface Order {
  name: 'createOrder';
  layout: 'idl-0.10.0' | 'market-hash';
  accounts: Record<(typeof CREATE_ORDER_ACCOUNTS)[number], string>;
  /** The market field: the market id (IDL v0.10.0), or its hash (market-hash layout). */
  market: string;
  isYes: boolean;
  isBuy: boolean;
  contracts: bigint;
  /** A buy's most or a sell's least price a contract, micro-USD. */
  limit: bigint;
  /** Settlement-mint base units into the order's escrow. */
  deposit: bigint;
  integrator: PublicKey | null;
  integratorFeeBps: number | null;
  /** How far past the limit the order may fill (the market-hash layout's larger slippage), bps. */
  slippageBps: number;
}

/** Reads a prediction instruction, either layout of `create_order` as an Order. */
function decodeOrder(ix: RawInstruction): Order | Exclude<PredictionInstruction, { name: 'createOrder' | 'createOrderByHash' }> | undefined {
  const d = decodePredictionInstruction(ix);
  if (d?.name === 'createOrder') {
    const a = d.args;
    return { name: 'createOrder', layout: 'idl-0.10.0', accounts: d.accounts, market: a.marketId, isYes: a.isYes, isBuy: a.isBuy, contracts: a.contracts, limit: a.maxFillPriceUsd, deposit: a.depositAmount, integrator: a.integrator, integratorFeeBps: a.integratorFeeBps, slippageBps: 0 };
  }
  if (d?.name === 'createOrderByHash') {
    const a = d.args;
    return { name: 'createOrder', layout: 'market-hash', accounts: d.accounts, market: a.marketIdHash, isYes: a.isYes, isBuy: a.isBuy, contracts: a.contracts, limit: a.maxFillPriceUsd, deposit: a.depositAmount, integrator: null, integratorFeeBps: null, slippageBps: Math.max(a.slippageBps, a.maxSlippageBps ?? 0) };
  }
  return d;
}

/**
 * A prediction buy's `create_order` held to the intent: the wallet owns it and pays from its own token account of
 * the settlement mint; a buy on the intent's side of the intent's market; the deposit and its mint are the intent's
 * (or, funded by a swap, what the swap of the intent's deposit gives); the price limit, widened by any slippage, is at
 * most the intent's; no integrator fee; the escrow is the order's token account, the vault the settlement mint's; the
 * wallet pays the rent, or in a gasless order the fee payer does (rentPayer). A position that already exists must be
 * the wallet's, in that market and side. The deposit may go only into the order's escrow.
 */
export function predictionBuyCheck(intent: Extract<Intent, { kind: 'prediction.buy' }>, wallet: PublicKey): ProductCheck {
  const me = wallet.toBase58();
  const mint = intent.depositMint ?? USDC_MINT;
  return {
    kind: intent.kind,
    program: PROGRAM,
    reads: [],
    check(instructions, accountAt, message) {
      const t = new Terms();
      const ix = theInstruction(instructions, PROGRAM, decodeOrder, 'createOrder', t);
      if (!ix) return t.verdict();
      const a = ix.accounts;
      t.same('product-owner', 'the order\'s owner', a.owner, me);
      rentPayer(t, a.payer, me, message?.sponsor);
      if (!ix.isBuy) t.fail('product-side', 'the order is a sell; the intent is a buy');
      t.same('product-side', 'the side (YES)', ix.isYes, intent.side === 'yes');
      // The market-hash layout names the market by the API's hash of its id, which the guard derives from the intent's id.
      if (ix.layout === 'idl-0.10.0') t.same('product-market', 'the market', ix.market, intent.marketId);
      else t.same('product-market', `the market id hash (the intent's ${intent.marketId} hashes to ${marketIdHash(intent.marketId)})`, ix.market, marketIdHash(intent.marketId));
      const most = ix.limit + (ix.limit * BigInt(ix.slippageBps) + 9_999n) / 10_000n;
      if (most > intent.maxPriceMicroUsd) t.fail('product-price-limit', `the order may fill at up to ${most} micro-USD a contract (limit ${ix.limit}${ix.slippageBps > 0 ? ` plus ${ix.slippageBps} bps slippage` : ''}); the intent's limit is ${intent.maxPriceMicroUsd}`);
      const swaps = instructions.filter((i) => i.programId === AGGREGATOR);
      let funding: ProductFunding | undefined;
      if (swaps.length === 0) {
        t.same('product-mint', 'the deposit (settlement) mint', a.settlementMint, mint);
        t.same('product-amount', 'the deposit', ix.deposit, intent.depositAmount);
      } else {
        funding = fundingSwap(t, swaps, ix, intent, mint, me);
      }
      t.same('product-owner', 'the account the deposit is pulled from', a.ownerTokenAccount, ata(me, a.settlementMint, PROGRAM_IDS.splToken));
      commonOrderTerms(t, ix, accountAt, me);
      t.escrow(orderAtaAddress(new PublicKey(a.order), new PublicKey(a.settlementMint)).toBase58());
      const v = t.verdict();
      return funding ? { ...v, terms: { ...v.terms, funding } } : v;
    },
  };
}

/**
 * The aggregator route a buy is funded by, held to the buy's own terms: one route (`route` or
 * `shared_accounts_route`), signed by the wallet, taking exactly the intent's deposit from the wallet's own account of
 * the deposit mint, paying no platform fee, its output in the settlement mint landing in the account the order pays
 * its deposit from; the two mints the two settlement stables; the order depositing at least the deposit less
 * FUNDING_BOUND_BPS. Returns the ProductFunding that lets the flows take the swap (undefined when refused).
 */
function fundingSwap(t: Terms, swaps: readonly TopInstruction[], order: Order, intent: Extract<Intent, { kind: 'prediction.buy' }>, mint: string, me: string): ProductFunding | undefined {
  if (swaps.length > 1) {
    t.fail('product-instruction', `the transaction has ${swaps.length} instructions of the aggregator ${AGGREGATOR}; a buy is funded by one swap at most`);
    return undefined;
  }
  let route: ReturnType<typeof decodeAggregatorRoute>;
  try {
    route = decodeAggregatorRoute(swaps[0]!);
  } catch (err) {
    if (!(err instanceof ProgramLayoutError)) throw err;
    t.fail('product-instruction', `the aggregator instruction funding the buy cannot be read: ${err.message}`);
    return undefined;
  }
  if (!route) {
    t.fail('product-instruction', `the aggregator instruction is neither route nor shared_accounts_route, the swaps a buy may be funded by`);
    return undefined;
  }
  const settlement = order.accounts.settlementMint;
  if (!SETTLEMENT_STABLES.has(mint) || !SETTLEMENT_STABLES.has(settlement) || mint === settlement) {
    t.fail('product-mint', `a swap funds a buy only from one settlement stable into the other (USDC, JupUSD); this one swaps ${mint} into the settlement mint ${settlement}`);
  }
  t.same('product-owner', 'the swap\'s signer', route.authority, me);
  t.same('product-owner', 'the account the swap takes the deposit from', route.source, ata(me, mint, PROGRAM_IDS.splToken));
  if (route.sourceMint !== null) t.same('product-mint', 'the swap\'s input mint', route.sourceMint, mint);
  t.same('product-mint', 'the swap\'s output mint', route.destinationMint, settlement);
  t.same('product-escrow', 'where the swap\'s output lands (the account the order pays its deposit from)', route.destination, order.accounts.ownerTokenAccount);
  t.same('product-amount', 'the deposit the swap takes', route.inAmount, intent.depositAmount);
  if (route.platformFeeBps !== 0) t.fail('product-fee', `the swap funding the buy takes a platform fee of ${route.platformFeeBps} bps; the intent asks for none`);
  const least = (intent.depositAmount * (10_000n - FUNDING_BOUND_BPS)) / 10_000n;
  if (order.deposit < least) t.fail('product-amount', `the order deposits ${order.deposit} of ${settlement} for the wallet's ${intent.depositAmount} of ${mint}; at least ${least} must reach it (a swap between stables loses at most ${FUNDING_BOUND_BPS} bps)`);
  return { program: AGGREGATOR, inputMint: mint, most: intent.depositAmount, outputMint: settlement, deposit: order.deposit };
}

/**
 * A prediction sell's `create_order` held to the intent: the wallet owns it; a sell of the intent's position, which
 * the chain holds as the wallet's, in the order's market and side; the contracts are the intent's (rounded down to
 * the 0.01-contract step, never more), or for a close of the whole position no more than the position holds on
 * chain; no deposit; the price floor (the same `max_fill_price_usd` field, a floor on a sell), lowered by any
 * slippage, is at least the intent's; no integrator fee; proceeds go to the wallet's own token account; no swap; the
 * order's rent paid by the wallet or, gasless, by the fee payer (rentPayer). A
 * position does not record its settlement mint, so the mint named is held only to the vault and escrow derived from
 * it. In the market-hash layout the order's market is tied to the position's on chain the same way.
 */
export function predictionSellCheck(intent: Extract<Intent, { kind: 'prediction.sell' | 'prediction.closePosition' }>, wallet: PublicKey): ProductCheck {
  const me = wallet.toBase58();
  return {
    kind: intent.kind,
    program: PROGRAM,
    reads: [],
    check(instructions, accountAt, message) {
      const t = new Terms();
      noSwap(t, instructions, intent.kind);
      const ix = theInstruction(instructions, PROGRAM, decodeOrder, 'createOrder', t);
      if (!ix) return t.verdict();
      const a = ix.accounts;
      t.same('product-owner', 'the order\'s owner', a.owner, me);
      rentPayer(t, a.payer, me, message?.sponsor);
      t.same('product-target', 'the position sold', a.position, intent.positionPubkey);
      if (ix.isBuy) t.fail('product-side', 'the order is a buy; the intent is a sell');
      const held = accountAt(a.position);
      const position = held && held.owner === PROGRAM ? decodePositionAccount(held.data) : undefined;
      if (intent.kind === 'prediction.sell') {
        const least = (intent.contractsMicro / CONTRACT_STEP) * CONTRACT_STEP;
        if (ix.contracts > intent.contractsMicro || ix.contracts < least || ix.contracts === 0n) t.fail('product-amount', `the order sells ${ix.contracts} micro-contracts; the intent sells ${intent.contractsMicro}`);
      } else if (position && (ix.contracts > position.contracts || ix.contracts === 0n)) {
        t.fail('product-amount', `the order sells ${ix.contracts} micro-contracts; the position holds ${position.contracts}`);
      }
      t.same('product-amount', 'the deposit of a sell', ix.deposit, 0n);
      const floor = ix.limit - (ix.limit * BigInt(ix.slippageBps) + 9_999n) / 10_000n;
      if (floor < intent.minPriceMicroUsd) t.fail('product-price-limit', `the order may sell at as little as ${floor} micro-USD a contract (floor ${ix.limit}${ix.slippageBps > 0 ? ` less ${ix.slippageBps} bps slippage` : ''}); the intent's floor is ${intent.minPriceMicroUsd}`);
      if (!held) t.fail('product-target', `${a.position} holds no position to sell`);
      t.same('product-payout', 'where the proceeds go', a.ownerTokenAccount, ata(me, a.settlementMint, PROGRAM_IDS.splToken));
      commonOrderTerms(t, ix, accountAt, me);
      return t.verdict();
    },
  };
}

/**
 * create_order's payer, who pays the rent of the order, its escrow and a new position (and gets it back when they
 * close): the wallet, or, in a gasless order, the account the policy lets pay the fee in its place (`sponsor`:
 * Jupiter's gas payer is both in the captured gasless orders). Anyone else is refused.
 */
function rentPayer(t: Terms, payer: string, me: string, sponsor: string | undefined): void {
  if (payer === me || (sponsor !== undefined && payer === sponsor)) return;
  t.fail('product-owner', `the order's payer (who pays its rent) is ${payer}; the intent's is the wallet ${me}${sponsor === undefined ? '' : ` or the fee payer ${sponsor} paying in its place`}`);
}

/** Only a buy may carry a swap: an aggregator instruction in any other prediction transaction is refused. */
function noSwap(t: Terms, instructions: readonly TopInstruction[], kind: string): void {
  const n = instructions.filter((i) => i.programId === AGGREGATOR).length;
  if (n > 0) t.fail('product-instruction', `the transaction has ${n} instruction${n === 1 ? '' : 's'} of the aggregator ${AGGREGATOR}; only a buy may be funded by a swap, not a ${kind}`);
}

/**
 * What buys and sells share: no integrator fee, the escrow and vault derived from the program, a new order account
 * (off the curve, not existing yet, not the vault or the position), the position's owner, market and side; the
 * accounts the wallet may pay rent for (the order, its escrow, a new position).
 */
function commonOrderTerms(t: Terms, ix: Order, accountAt: AccountAt, me: string): void {
  const a = ix.accounts;
  if (ix.integrator !== null || (ix.integratorFeeBps ?? 0) !== 0) t.fail('product-fee', `the order pays an integrator ${ix.integrator?.toBase58() ?? '(none)'} ${ix.integratorFeeBps ?? 0} bps; the intent asks for none`);
  const settlement = new PublicKey(a.settlementMint);
  t.same('product-escrow', 'the vault (PDA of ["vault", settlement mint])', a.vault, vaultAddress(settlement).address.toBase58());
  if (!offCurve(a.order)) t.fail('product-escrow', `the order account ${a.order} is an ordinary key someone may hold, not an address of a program`);
  if (a.order === a.vault || a.order === a.position) t.fail('product-escrow', `the order account ${a.order} is the instruction's ${a.order === a.vault ? 'vault' : 'position'}`);
  t.absent('product-escrow', 'new order\'s account', a.order, accountAt);
  const orderAta = orderAtaAddress(new PublicKey(a.order), settlement).toBase58();
  t.same('product-escrow', 'the escrow (the order\'s token account of the settlement mint)', a.orderAta, orderAta);
  t.created(stateAccount(a.order, PROGRAM, ORDER_SPACE, 'order account'));
  t.created(tokenAccount(orderAta, a.settlementMint, PROGRAM_IDS.splToken, 'order\'s escrow'));
  const held = accountAt(a.position);
  if (!held) {
    // A first buy in this market and side opens the position: the order's payer (the wallet, or a gasless order's
    // gas payer) pays its rent.
    if (ix.isBuy) t.created(stateAccount(a.position, PROGRAM, POSITION_SPACE, 'position account'));
    return;
  }
  const position = held.owner === PROGRAM ? decodePositionAccount(held.data) : undefined;
  if (!position) {
    t.fail('product-target', `${a.position} holds no position of the prediction program`);
    return;
  }
  t.same('product-owner', 'the owner of the position on chain', position.owner.toBase58(), me);
  if (!sameMarket(position.marketId, ix.market)) t.fail('product-market', `the market of the position on chain is ${position.marketId}; the order's is ${ix.market}${ix.layout === 'market-hash' ? ' (a market id hash)' : ''}`);
  t.same('product-side', 'the side (YES) of the position on chain', position.isYes, ix.isYes);
}

/**
 * Whether two market fields name the same market, each a market id or the API's hash of one (marketIdHash): a
 * position holds what the order that opened it named (the id in the IDL v0.10.0 layout, the hash in the market-hash
 * layout, as the captured position does), and an order of either layout may sell it. An id never equals a hash of
 * another (that would take a preimage of sha256).
 */
function sameMarket(a: string, b: string): boolean {
  return a === b || marketIdHash(a) === b || marketIdHash(b) === a;
}

/**
 * A prediction close's `cancel_order` (by its owner) held to the intent: the order named is the intent's and, as the
 * chain holds it, the wallet's, of the position named; the wallet signs as owner; the unfilled deposit goes back to
 * the wallet's own token account of the settlement mint, at least what the escrow held, and the order's rent to the
 * wallet; escrow and vault are the ones derived from the program; what leaves the escrow goes nowhere else.
 */
export function predictionCloseCheck(intent: Extract<Intent, { kind: 'prediction.closeOrder' }>, wallet: PublicKey): ProductCheck {
  const me = wallet.toBase58();
  return {
    kind: intent.kind,
    program: PROGRAM,
    reads: [],
    check(instructions, accountAt) {
      const t = new Terms();
      noSwap(t, instructions, intent.kind);
      const ix = theInstruction(instructions, PROGRAM, decodePredictionInstruction, 'cancelOrder', t);
      if (!ix) return t.verdict();
      const a = ix.accounts;
      t.same('product-target', 'the order closed', a.order, intent.orderPubkey);
      t.same('product-owner', 'the order\'s owner', a.owner, me);
      const held = accountAt(a.order);
      const order = held && held.owner === PROGRAM ? decodeOrderAccount(held.data) : undefined;
      if (!order) {
        t.fail('product-target', `${a.order} holds no order of the prediction program`);
      } else {
        t.same('product-owner', 'the owner of the order on chain', order.owner.toBase58(), me);
        t.same('product-target', 'the position named', a.position, order.position.toBase58());
      }
      const settlement = new PublicKey(a.settlementMint);
      t.same('product-escrow', 'the vault (PDA of ["vault", settlement mint])', a.vault, vaultAddress(settlement).address.toBase58());
      t.same('product-escrow', 'the escrow (the order\'s token account of the settlement mint)', a.orderAta, orderAtaAddress(new PublicKey(a.order), settlement).toBase58());
      t.same('product-payout', 'where the refund goes', a.ownerTokenAccount, ata(me, a.settlementMint, PROGRAM_IDS.splToken));
      t.same('product-payout', 'where the order\'s rent goes', a.rentDestination, me);
      t.payer(a.orderAta);
      t.payout({ mint: a.settlementMint, least: balanceOf(a.orderAta, accountAt), what: `the refund of what the order's escrow ${a.orderAta} holds` });
      return t.verdict();
    },
  };
}

/**
 * A prediction claim's `claim_payout` (by its owner) held to the intent: the position named is the intent's and, as
 * the chain holds it, the wallet's; the wallet signs; the vault is a vault account of the program at the PDA of its
 * settlement mint; the market result named is one of the program's, for the position's market; the payout goes to
 * the wallet's own token account of that mint, and at least $1 for each contract of a winning position (the
 * position's contracts on chain are micro-contracts, the settlement mint's base units) must arrive there; what
 * leaves the vault's token account goes nowhere else. The market-result account's seeds are not published, so it is
 * tied to the position by the market id it holds.
 */
export function predictionClaimCheck(intent: Extract<Intent, { kind: 'prediction.claim' }>, wallet: PublicKey): ProductCheck {
  const me = wallet.toBase58();
  return {
    kind: intent.kind,
    program: PROGRAM,
    reads: [],
    check(instructions, accountAt) {
      const t = new Terms();
      noSwap(t, instructions, intent.kind);
      const ix = theInstruction(instructions, PROGRAM, decodePredictionInstruction, 'claimPayout', t);
      if (!ix) return t.verdict();
      const a = ix.accounts;
      t.same('product-target', 'the position claimed', a.position, intent.positionPubkey);
      t.same('product-owner', 'the claimer', a.claimer, me);
      const heldPosition = accountAt(a.position);
      const position = heldPosition && heldPosition.owner === PROGRAM ? decodePositionAccount(heldPosition.data) : undefined;
      if (!position) t.fail('product-target', `${a.position} holds no position of the prediction program`);
      else t.same('product-owner', 'the owner of the position on chain', position.owner.toBase58(), me);
      const heldResult = accountAt(a.marketResult);
      const result = heldResult && heldResult.owner === PROGRAM ? decodeMarketResultAccount(heldResult.data) : undefined;
      if (!result) t.fail('product-market', `${a.marketResult} holds no market result of the prediction program`);
      else if (position) t.same('product-market', 'the market of the result named', result.marketId, position.marketId);
      const heldVault = accountAt(a.vault);
      const vault = heldVault && heldVault.owner === PROGRAM ? decodeVaultAccount(heldVault.data) : undefined;
      if (!vault) {
        t.fail('product-escrow', `${a.vault} holds no vault of the prediction program, so the payout's mint is unknown`);
        return t.verdict();
      }
      const mint = vault.settlementMint.toBase58();
      t.same('product-escrow', 'the vault (PDA of ["vault", its settlement mint])', a.vault, vaultAddress(vault.settlementMint).address.toBase58());
      t.same('product-payout', 'where the payout goes', a.ownerTokenAccount, ata(me, mint, PROGRAM_IDS.splToken));
      t.payer(a.vaultTokenAccount);
      const won = position !== undefined && result !== undefined && result.marketId === position.marketId && result.outcome === (position.isYes ? 'yes' : 'no');
      // A split or refunded market pays by rules the client does not publish: nothing is required, but the payer rule still holds.
      if (won) t.payout({ mint, least: position.contracts, what: `$1 for each of the ${position.contracts} micro-contracts of a winning ${position.isYes ? 'YES' : 'NO'} position in ${position.marketId}` });
      return t.verdict();
    },
  };
}
