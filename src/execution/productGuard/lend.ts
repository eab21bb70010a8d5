import { PublicKey } from '@solana/web3.js';
import { decodeLendingAccount, decodeLendInstruction, EXCHANGE_PRICE_PRECISION, LEND_PROGRAM, marketAddresses, type LendBound, type LendingAccount } from '../../jupiter/programs/lend.js';
import type { Intent } from '../../sdk/intents.js';
import type { ProductCheck } from '../../solana/guardTypes.js';
import { ata, isTokenProgram, Terms, theInstruction, type AccountAt } from './terms.js';

const PROGRAM = LEND_PROGRAM.toBase58();
/**
 * How far a deposit's shares may fall short of the amount's worth at the exchange price the `lending` account holds:
 * the program first brings the price up to date (interest accrued since its last update), so a share costs a little
 * more than the account says. 50 bps is months of interest at Earn's rates; a venue that withholds more is refused.
 * The bound of a bounded variant (depositWithMinAmountOut and its three twins) may be that much looser than the
 * exact worth at the account's price, and no more.
 */
export const LEND_RATE_BOUND_BPS = 50n;

type Into = Extract<Intent, { kind: 'lend.deposit' | 'lend.mint' }>;
type OutOf = Extract<Intent, { kind: 'lend.withdraw' | 'lend.redeem' }>;

/**
 * A Lend Earn `deposit` (an asset amount) or `mint` (a share amount) held to the intent: the wallet signs and pays
 * from its own token account of the asset; the asset and the amount are the intent's; the market's accounts are the
 * ones @jup-ag/lend derives for that asset with the programs' published seeds: its `lending` account, and as the
 * escrow the vault (the asset's token account of the liquidity program's `liquidity` PDA), the only account the
 * asset may go into; the share token is the asset's jlToken (PDA ["f_token_mint", asset]) and is minted to the
 * wallet's own token account of it, and to no one else. What must arrive there: a mint's exact shares; a deposit's amount at the
 * exchange price the `lending` account holds on chain, less LEND_RATE_BOUND_BPS (a mint's cost is bounded by the
 * flows: at most the intent's maxAmount). The bounded variants are the same operation with a bound the program holds
 * the on-chain exchange price to: `depositWithMinAmountOut`'s minimum shares may be no lower than what must arrive
 * (that worth less LEND_RATE_BOUND_BPS), `mintWithMaxAssets`' most assets no higher than the intent's maxAmount nor
 * than the shares' cost at that price plus LEND_RATE_BOUND_BPS.
 */
export function lendDepositCheck(intent: Into, wallet: PublicKey): ProductCheck {
  const me = wallet.toBase58();
  const byShares = intent.kind === 'lend.mint';
  return {
    kind: intent.kind,
    program: PROGRAM,
    reads: [],
    check(instructions, accountAt) {
      const t = new Terms();
      const ix = theInstruction(instructions, PROGRAM, decodeLendInstruction, byShares ? 'mint' : 'deposit', t);
      if (!ix) return t.verdict();
      const a = ix.accounts;
      t.same('product-owner', 'the depositor', a.signer, me);
      t.same('product-mint', 'the asset deposited', a.mint, intent.asset);
      if (intent.kind === 'lend.mint') t.same('product-amount', 'the shares minted', ix.amount, intent.shares);
      else t.same('product-amount', 'the amount deposited', ix.amount, intent.amount);
      if (!isTokenProgram(a.tokenProgram)) {
        t.fail('product-escrow', `the token program ${a.tokenProgram} is neither token program`);
        return t.verdict();
      }
      const market = marketAddresses(new PublicKey(intent.asset), new PublicKey(a.tokenProgram));
      t.same('product-owner', 'the account the asset is pulled from', a.depositorTokenAccount, ata(me, intent.asset, a.tokenProgram));
      t.same('product-escrow', 'the vault the asset goes into', a.vault, market.vault.toBase58());
      t.same('product-escrow', 'the lending market', a.lending, market.lending.toBase58());
      const shares = market.fTokenMint.toBase58();
      t.same('product-share-token', 'the share (jlToken) mint', a.fTokenMint, shares);
      t.same('product-share-token', 'the account the shares are minted to', a.recipientTokenAccount, ata(me, shares, a.tokenProgram));
      t.escrow(market.vault.toBase58());
      t.ownMint(shares);
      if (intent.kind === 'lend.mint') {
        t.payout({ mint: shares, least: intent.shares, what: `the ${intent.shares} shares the mint asks for` });
        const lending = ix.bound ? lendingAt(t, market.lending.toBase58(), intent.asset, accountAt) : undefined;
        if (ix.bound && lending) {
          const cost = ceilDiv(intent.shares * lending.tokenExchangePrice, EXCHANGE_PRICE_PRECISION);
          const most = min(intent.maxAmount, widen(cost));
          boundAtMost(t, ix.bound, most, `the intent's maxAmount ${intent.maxAmount}, and the ${intent.shares} shares' cost ${cost} at the exchange price ${lending.tokenExchangePrice} of the lending account plus ${LEND_RATE_BOUND_BPS} bps`);
        }
      } else {
        const lending = lendingAt(t, market.lending.toBase58(), intent.asset, accountAt);
        if (lending) {
          const worth = (intent.amount * EXCHANGE_PRICE_PRECISION) / lending.tokenExchangePrice;
          const least = narrow(worth);
          const what = `the deposit's ${intent.amount} at the exchange price ${lending.tokenExchangePrice} of the lending account is ${worth} shares, less ${LEND_RATE_BOUND_BPS} bps`;
          t.payout({ mint: shares, least, what });
          if (ix.bound) boundAtLeast(t, ix.bound, least, what);
        }
      }
      return t.verdict();
    },
  };
}

/**
 * A Lend Earn `withdraw` (an asset amount) or `redeem` (a share amount) held to the intent: the wallet signs; the
 * asset withdrawn and the amount are the intent's; the shares burnt are the asset's jlToken from the wallet's own
 * account of it; the asset is paid to the wallet's own token account of it, out of the asset's vault, and nowhere
 * else. What must arrive: a withdrawal's exact amount; a redemption's shares at the exchange price the `lending`
 * account holds on chain (the program only raises it before paying). The flows bound the shares a withdrawal burns.
 * The bounded variants' bounds are held to the same price: `withdrawWithMaxSharesBurn`'s most shares no higher than
 * the amount's worth in shares (rounded up) plus LEND_RATE_BOUND_BPS, `redeemWithMinAmountOut`'s least assets no
 * lower than the shares' worth less LEND_RATE_BOUND_BPS.
 */
export function lendWithdrawCheck(intent: OutOf, wallet: PublicKey): ProductCheck {
  const me = wallet.toBase58();
  const byShares = intent.kind === 'lend.redeem';
  return {
    kind: intent.kind,
    program: PROGRAM,
    reads: [],
    check(instructions, accountAt) {
      const t = new Terms();
      const ix = theInstruction(instructions, PROGRAM, decodeLendInstruction, byShares ? 'redeem' : 'withdraw', t);
      if (!ix) return t.verdict();
      const a = ix.accounts;
      t.same('product-owner', 'the withdrawer', a.signer, me);
      t.same('product-mint', 'the asset withdrawn', a.mint, intent.asset);
      if (intent.kind === 'lend.redeem') t.same('product-amount', 'the shares redeemed', ix.amount, intent.shares);
      else t.same('product-amount', 'the amount withdrawn', ix.amount, intent.amount);
      if (!isTokenProgram(a.tokenProgram)) {
        t.fail('product-escrow', `the token program ${a.tokenProgram} is neither token program`);
        return t.verdict();
      }
      const market = marketAddresses(new PublicKey(intent.asset), new PublicKey(a.tokenProgram));
      const shares = market.fTokenMint.toBase58();
      t.same('product-share-token', 'the share (jlToken) mint burnt', a.fTokenMint, shares);
      t.same('product-owner', 'the account the shares are burnt from', a.ownerTokenAccount, ata(me, shares, a.tokenProgram));
      t.same('product-escrow', 'the vault the asset comes from', a.vault, market.vault.toBase58());
      t.same('product-escrow', 'the lending market', a.lending, market.lending.toBase58());
      t.same('product-payout', 'where the asset is paid', a.recipientTokenAccount, ata(me, intent.asset, a.tokenProgram));
      t.payer(market.vault.toBase58());
      if (intent.kind === 'lend.withdraw') {
        t.payout({ mint: intent.asset, least: intent.amount, what: `the ${intent.amount} the withdrawal asks for` });
        const lending = ix.bound ? lendingAt(t, market.lending.toBase58(), intent.asset, accountAt) : undefined;
        if (ix.bound && lending) {
          const burnt = ceilDiv(intent.amount * EXCHANGE_PRICE_PRECISION, lending.tokenExchangePrice);
          boundAtMost(t, ix.bound, widen(burnt), `the ${intent.amount} withdrawn is ${burnt} shares at the exchange price ${lending.tokenExchangePrice} of the lending account, plus ${LEND_RATE_BOUND_BPS} bps`);
        }
      } else {
        const lending = lendingAt(t, market.lending.toBase58(), intent.asset, accountAt);
        if (lending) {
          const worth = (intent.shares * lending.tokenExchangePrice) / EXCHANGE_PRICE_PRECISION;
          const what = `the ${intent.shares} shares at the exchange price ${lending.tokenExchangePrice} of the lending account`;
          t.payout({ mint: intent.asset, least: worth, what });
          if (ix.bound) boundAtLeast(t, ix.bound, narrow(worth), `${what} are worth ${worth}, less ${LEND_RATE_BOUND_BPS} bps`);
        }
      }
      return t.verdict();
    },
  };
}

/** The market's `lending` account as the chain holds it, for the asset; a violation when it is not one. */
function lendingAt(t: Terms, address: string, asset: string, accountAt: AccountAt): LendingAccount | undefined {
  const held = accountAt(address);
  const lending = held && held.owner === PROGRAM ? decodeLendingAccount(held.data) : undefined;
  if (!lending || lending.mint.toBase58() !== asset || lending.tokenExchangePrice === 0n) {
    t.fail('product-escrow', `${address} holds no lending market of the Earn program for ${asset}, so what the shares are worth is unknown`);
    return undefined;
  }
  return lending;
}

/** A bounded variant's least (shares minted, assets paid) must be no lower than `least`. */
function boundAtLeast(t: Terms, bound: LendBound, least: bigint, why: string): void {
  if (bound.value < least) t.fail('product-price-limit', `the instruction's ${bound.arg} is ${bound.value}, below the ${least} the intent and the on-chain exchange price allow (${why})`);
}

/** A bounded variant's most (assets paid in, shares burnt) must be no higher than `most`. */
function boundAtMost(t: Terms, bound: LendBound, most: bigint, why: string): void {
  if (bound.value > most) t.fail('product-price-limit', `the instruction's ${bound.arg} is ${bound.value}, above the ${most} the intent and the on-chain exchange price allow (${why})`);
}

/** An amount less LEND_RATE_BOUND_BPS, rounded down. */
function narrow(n: bigint): bigint {
  return (n * (10_000n - LEND_RATE_BOUND_BPS)) / 10_000n;
}

/** An amount plus LEND_RATE_BOUND_BPS, rounded up. */
function widen(n: bigint): bigint {
  return ceilDiv(n * (10_000n + LEND_RATE_BOUND_BPS), 10_000n);
}

function ceilDiv(a: bigint, b: bigint): bigint {
  return (a + b - 1n) / b;
}

function min(a: bigint, b: bigint): bigint {
  return a < b ? a : b;
}
