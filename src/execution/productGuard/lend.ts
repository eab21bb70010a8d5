import { PublicKey } from '@solana/web3.js';
import { decodeLendInstruction, LEND_PROGRAM, marketAddresses } from '../../jupiter/programs/lend.js';
import type { Intent } from '../../sdk/intents.js';
import type { ProductCheck } from '../../solana/guardTypes.js';
import { ata, isTokenProgram, Terms, theInstruction } from './terms.js';

const PROGRAM = LEND_PROGRAM.toBase58();

type Into = Extract<Intent, { kind: 'lend.deposit' | 'lend.mint' }>;
type OutOf = Extract<Intent, { kind: 'lend.withdraw' | 'lend.redeem' }>;

/**
 * A Lend Earn `deposit` (an asset amount) or `mint` (a share amount) held to the intent: the wallet signs and pays
 * from its own token account of the asset; the asset and the amount are the intent's; the market's accounts are the
 * ones @jup-ag/lend derives for that asset with the programs' published seeds: its `lending` account, and as the
 * escrow the vault (the asset's token account of the liquidity program's `liquidity` PDA); the share token is the
 * asset's jlToken (PDA ["f_token_mint", asset]) and is minted to the wallet's own token account of it. The exchange
 * price between asset and shares is the program's at that moment and not in the instruction: the guard cannot check
 * it (a deposit's shares, a mint's cost; the flows bound a mint's cost by the intent's maxAmount).
 */
export function lendDepositCheck(intent: Into, wallet: PublicKey): ProductCheck {
  const me = wallet.toBase58();
  const byShares = intent.kind === 'lend.mint';
  return {
    kind: intent.kind,
    reads: [],
    check(instructions) {
      const t = new Terms();
      const ix = theInstruction(instructions, PROGRAM, decodeLendInstruction, byShares ? 'mint' : 'deposit', t);
      if (!ix) return t.violations;
      const a = ix.accounts;
      t.same('product-owner', 'the depositor', a.signer, me);
      t.same('product-mint', 'the asset deposited', a.mint, intent.asset);
      if (intent.kind === 'lend.mint') t.same('product-amount', 'the shares minted', ix.amount, intent.shares);
      else t.same('product-amount', 'the amount deposited', ix.amount, intent.amount);
      if (!isTokenProgram(a.tokenProgram)) {
        t.fail('product-escrow', `the token program ${a.tokenProgram} is neither token program`);
        return t.violations;
      }
      const market = marketAddresses(new PublicKey(intent.asset), new PublicKey(a.tokenProgram));
      t.same('product-owner', 'the account the asset is pulled from', a.depositorTokenAccount, ata(me, intent.asset, a.tokenProgram));
      t.same('product-escrow', 'the vault the asset goes into', a.vault, market.vault.toBase58());
      t.same('product-escrow', 'the lending market', a.lending, market.lending.toBase58());
      const shares = market.fTokenMint.toBase58();
      t.same('product-share-token', 'the share (jlToken) mint', a.fTokenMint, shares);
      t.same('product-share-token', 'the account the shares are minted to', a.recipientTokenAccount, ata(me, shares, a.tokenProgram));
      return t.violations;
    },
  };
}

/**
 * A Lend Earn `withdraw` (an asset amount) or `redeem` (a share amount) held to the intent: the wallet signs; the
 * asset withdrawn and the amount are the intent's; the shares burnt are the asset's jlToken from the wallet's own
 * account of it; the asset is paid to the wallet's own token account of it, out of the asset's vault. The exchange
 * price is the program's and not in the instruction: the flows bound the shares a withdrawal burns instead.
 */
export function lendWithdrawCheck(intent: OutOf, wallet: PublicKey): ProductCheck {
  const me = wallet.toBase58();
  const byShares = intent.kind === 'lend.redeem';
  return {
    kind: intent.kind,
    reads: [],
    check(instructions) {
      const t = new Terms();
      const ix = theInstruction(instructions, PROGRAM, decodeLendInstruction, byShares ? 'redeem' : 'withdraw', t);
      if (!ix) return t.violations;
      const a = ix.accounts;
      t.same('product-owner', 'the withdrawer', a.signer, me);
      t.same('product-mint', 'the asset withdrawn', a.mint, intent.asset);
      if (intent.kind === 'lend.redeem') t.same('product-amount', 'the shares redeemed', ix.amount, intent.shares);
      else t.same('product-amount', 'the amount withdrawn', ix.amount, intent.amount);
      if (!isTokenProgram(a.tokenProgram)) {
        t.fail('product-escrow', `the token program ${a.tokenProgram} is neither token program`);
        return t.violations;
      }
      const market = marketAddresses(new PublicKey(intent.asset), new PublicKey(a.tokenProgram));
      const shares = market.fTokenMint.toBase58();
      t.same('product-share-token', 'the share (jlToken) mint burnt', a.fTokenMint, shares);
      t.same('product-owner', 'the account the shares are burnt from', a.ownerTokenAccount, ata(me, shares, a.tokenProgram));
      t.same('product-escrow', 'the vault the asset comes from', a.vault, market.vault.toBase58());
      t.same('product-escrow', 'the lending market', a.lending, market.lending.toBase58());
      t.same('product-payout', 'where the asset is paid', a.recipientTokenAccount, ata(me, intent.asset, a.tokenProgram));
      return t.violations;
    },
  };
}
