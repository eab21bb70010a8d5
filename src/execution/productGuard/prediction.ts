import { PublicKey } from '@solana/web3.js';
import { decodePredictionInstruction, orderAtaAddress, PREDICTION_PROGRAM, vaultAddress, type CreateOrderArgs, type CREATE_ORDER_ACCOUNTS } from '../../jupiter/programs/prediction.js';
import { decodeMarketResultAccount, decodeOrderAccount, decodePositionAccount, decodeVaultAccount, orderAccountSpace, positionAccountSpace } from '../../jupiter/programs/predictionAccounts.js';
import { USDC_MINT } from '../../lib/mints.js';
import type { Intent } from '../../sdk/intents.js';
import { PROGRAM_IDS } from '../../solana/programs.js';
import type { ProductCheck } from '../../solana/guardTypes.js';
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
 */

const PROGRAM = PREDICTION_PROGRAM.toBase58();
/** Contracts are sold in steps of 0.01 contract (jupiter-api.md §8: fills are floored to 0.01), in micro-contracts. */
const CONTRACT_STEP = 10_000n;
const ORDER_SPACE = orderAccountSpace();
const POSITION_SPACE = positionAccountSpace();

type CreateOrder = { accounts: Record<(typeof CREATE_ORDER_ACCOUNTS)[number], string>; args: CreateOrderArgs };

/**
 * A prediction buy's `create_order` held to the intent: the wallet owns it and pays from its own token account of
 * the deposit mint; a buy on the intent's side of the intent's market; the deposit and its mint are the intent's;
 * the price limit is at most the intent's; no integrator fee; the escrow is the order's token account, the vault the
 * deposit mint's; the wallet pays the rent. A position that already exists must be the wallet's, in that market and
 * side. The deposit may go only into the order's escrow.
 */
export function predictionBuyCheck(intent: Extract<Intent, { kind: 'prediction.buy' }>, wallet: PublicKey): ProductCheck {
  const me = wallet.toBase58();
  const mint = intent.depositMint ?? USDC_MINT;
  return {
    kind: intent.kind,
    program: PROGRAM,
    reads: [],
    check(instructions, accountAt) {
      const t = new Terms();
      const ix = theInstruction(instructions, PROGRAM, decodePredictionInstruction, 'createOrder', t);
      if (!ix) return t.verdict();
      const { accounts: a, args } = ix;
      t.same('product-owner', 'the order\'s owner', a.owner, me);
      t.same('product-owner', 'the order\'s payer (who pays its rent)', a.payer, me);
      if (!args.isBuy) t.fail('product-side', 'the order is a sell; the intent is a buy');
      t.same('product-side', 'the side (YES)', args.isYes, intent.side === 'yes');
      t.same('product-market', 'the market', args.marketId, intent.marketId);
      t.same('product-amount', 'the deposit', args.depositAmount, intent.depositAmount);
      t.same('product-mint', 'the deposit (settlement) mint', a.settlementMint, mint);
      if (args.maxFillPriceUsd > intent.maxPriceMicroUsd) t.fail('product-price-limit', `the order may fill at up to ${args.maxFillPriceUsd} micro-USD a contract; the intent's limit is ${intent.maxPriceMicroUsd}`);
      t.same('product-owner', 'the account the deposit is pulled from', a.ownerTokenAccount, ata(me, mint, PROGRAM_IDS.splToken));
      commonOrderTerms(t, ix, accountAt, me);
      t.escrow(orderAtaAddress(new PublicKey(a.order), new PublicKey(mint)).toBase58());
      return t.verdict();
    },
  };
}

/**
 * A prediction sell's `create_order` held to the intent: the wallet owns it; a sell of the intent's position, which
 * the chain holds as the wallet's, in the order's market and side; the contracts are the intent's (rounded down to
 * the 0.01-contract step, never more), or for a close of the whole position no more than the position holds on
 * chain; no deposit; the price floor (the same `max_fill_price_usd` field, a floor on a sell) is at least the
 * intent's; no integrator fee; proceeds go to the wallet's own token account. A position does not record its
 * settlement mint, so the mint named is held only to the vault and escrow derived from it.
 */
export function predictionSellCheck(intent: Extract<Intent, { kind: 'prediction.sell' | 'prediction.closePosition' }>, wallet: PublicKey): ProductCheck {
  const me = wallet.toBase58();
  return {
    kind: intent.kind,
    program: PROGRAM,
    reads: [],
    check(instructions, accountAt) {
      const t = new Terms();
      const ix = theInstruction(instructions, PROGRAM, decodePredictionInstruction, 'createOrder', t);
      if (!ix) return t.verdict();
      const { accounts: a, args } = ix;
      t.same('product-owner', 'the order\'s owner', a.owner, me);
      t.same('product-owner', 'the order\'s payer (who pays its rent)', a.payer, me);
      t.same('product-target', 'the position sold', a.position, intent.positionPubkey);
      if (args.isBuy) t.fail('product-side', 'the order is a buy; the intent is a sell');
      const held = accountAt(a.position);
      const position = held && held.owner === PROGRAM ? decodePositionAccount(held.data) : undefined;
      if (intent.kind === 'prediction.sell') {
        const least = (intent.contractsMicro / CONTRACT_STEP) * CONTRACT_STEP;
        if (args.contracts > intent.contractsMicro || args.contracts < least || args.contracts === 0n) t.fail('product-amount', `the order sells ${args.contracts} micro-contracts; the intent sells ${intent.contractsMicro}`);
      } else if (position && (args.contracts > position.contracts || args.contracts === 0n)) {
        t.fail('product-amount', `the order sells ${args.contracts} micro-contracts; the position holds ${position.contracts}`);
      }
      t.same('product-amount', 'the deposit of a sell', args.depositAmount, 0n);
      if (args.maxFillPriceUsd < intent.minPriceMicroUsd) t.fail('product-price-limit', `the order may sell at as little as ${args.maxFillPriceUsd} micro-USD a contract; the intent's floor is ${intent.minPriceMicroUsd}`);
      if (!held) t.fail('product-target', `${a.position} holds no position to sell`);
      t.same('product-payout', 'where the proceeds go', a.ownerTokenAccount, ata(me, a.settlementMint, PROGRAM_IDS.splToken));
      commonOrderTerms(t, ix, accountAt, me);
      return t.verdict();
    },
  };
}

/**
 * What buys and sells share: no integrator fee, the escrow and vault derived from the program, a new order account
 * (off the curve, not existing yet, not the vault or the position), the position's owner, market and side; the
 * accounts the wallet may pay rent for (the order, its escrow, a new position).
 */
function commonOrderTerms(t: Terms, ix: CreateOrder, accountAt: AccountAt, me: string): void {
  const { accounts: a, args } = ix;
  if (args.integrator !== null || (args.integratorFeeBps ?? 0) !== 0) t.fail('product-fee', `the order pays an integrator ${args.integrator?.toBase58() ?? '(none)'} ${args.integratorFeeBps ?? 0} bps; the intent asks for none`);
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
    // A first buy in this market and side opens the position: the wallet pays its rent.
    if (args.isBuy) t.created(stateAccount(a.position, PROGRAM, POSITION_SPACE, 'position account'));
    return;
  }
  const position = held.owner === PROGRAM ? decodePositionAccount(held.data) : undefined;
  if (!position) {
    t.fail('product-target', `${a.position} holds no position of the prediction program`);
    return;
  }
  t.same('product-owner', 'the owner of the position on chain', position.owner.toBase58(), me);
  t.same('product-market', 'the market of the position on chain', position.marketId, args.marketId);
  t.same('product-side', 'the side (YES) of the position on chain', position.isYes, args.isYes);
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
