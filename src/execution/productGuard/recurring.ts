import { PublicKey } from '@solana/web3.js';
import { DCA_ACCOUNT_SIZE, dcaAddress, decodeDcaAccount, decodeRecurringInstruction, RECURRING_PROGRAM } from '../../jupiter/programs/recurring.js';
import type { Intent } from '../../sdk/intents.js';
import { mintDecimals } from '../../solana/guardChanges.js';
import type { ProductCheck } from '../../solana/guardTypes.js';
import { ata, balanceOf, isTokenProgram, stateAccount, Terms, theInstruction, tokenAccount, type AccountAt } from './terms.js';

const PROGRAM = RECURRING_PROGRAM.toBase58();
/** How far a DCA price bound may sit from the intent's once turned into an out amount (a float conversion): 1 bp. */
const BOUND_TOLERANCE_BPS = 1n;

/**
 * A recurring order's `openDcaV2` held to the intent: the user is the wallet and pulls from its own token account;
 * the mints and the total in amount are the intent's; the slices are the intent's (in amount per cycle = in amount /
 * number of orders, the interval, starting now); the price bounds are the intent's, turned into out amounts per
 * cycle as the program stores them (a whole input token's price times the cycle's input, at the mints' decimals read
 * from the chain), and none where the intent has none; the user pays the order's rent; the order account is the
 * program's PDA of ["dca", user, input, output, application index], does not exist yet, and its escrow is that
 * order's token account of the input mint. The application index is the venue's choice (the SDK uses the unix
 * second): any value gives an order of the wallet's own. The deposit may go only into that escrow; the wallet may pay
 * the rent of the order account and of its two token accounts.
 */
export function recurringCreateCheck(intent: Extract<Intent, { kind: 'recurring.create' }>, wallet: PublicKey): ProductCheck {
  const me = wallet.toBase58();
  return {
    kind: intent.kind,
    program: PROGRAM,
    reads: [intent.inputMint, intent.outputMint],
    check(instructions, accountAt) {
      const t = new Terms();
      const ix = theInstruction(instructions, PROGRAM, decodeRecurringInstruction, 'openDcaV2', t);
      if (!ix) return t.verdict();
      const { accounts: a, args } = ix;
      t.same('product-owner', 'the order\'s user', a.user, me);
      t.same('product-owner', 'the order\'s payer (who pays its rent)', a.payer, me);
      t.same('product-mint', 'the order\'s input mint', a.inputMint, intent.inputMint);
      t.same('product-mint', 'the order\'s output mint', a.outputMint, intent.outputMint);
      t.same('product-amount', 'the in amount', args.inAmount, intent.inAmount);
      const perCycle = intent.inAmount / BigInt(intent.numberOfOrders);
      t.same('product-schedule', `the in amount per cycle (${intent.numberOfOrders} orders)`, args.inAmountPerCycle, perCycle);
      t.same('product-schedule', 'the cycle (seconds)', args.cycleFrequency, BigInt(intent.intervalSeconds));
      t.same('product-schedule', 'the start (unix seconds)', args.startAt, null);
      checkBound(t, 'least', args.minPrice, intent.minPrice, perCycle, intent, accountAt);
      checkBound(t, 'most', args.maxPrice, intent.maxPrice, perCycle, intent, accountAt);
      if (!isTokenProgram(a.tokenProgram)) {
        t.fail('product-escrow', `the token program ${a.tokenProgram} is neither token program`);
        return t.verdict();
      }
      const dca = dcaAddress(wallet, new PublicKey(intent.inputMint), new PublicKey(intent.outputMint), args.applicationIdx).address.toBase58();
      const inAta = ata(dca, intent.inputMint, a.tokenProgram);
      const outAta = ata(dca, intent.outputMint, a.tokenProgram);
      t.same('product-escrow', 'the order account (PDA of ["dca", user, input, output, index])', a.dca, dca);
      t.same('product-escrow', 'the escrow (the order\'s token account of the input mint)', a.inAta, inAta);
      t.same('product-escrow', 'the order\'s token account of the output mint', a.outAta, outAta);
      t.absent('product-target', 'new order\'s account', a.dca, accountAt);
      t.same('product-owner', 'the account the input is pulled from', a.userAta, ata(me, intent.inputMint, a.tokenProgram));
      t.escrow(inAta);
      t.created(stateAccount(dca, PROGRAM, DCA_ACCOUNT_SIZE, 'order account'));
      t.created(tokenAccount(inAta, intent.inputMint, a.tokenProgram, 'order\'s escrow of the input mint'));
      t.created(tokenAccount(outAta, intent.outputMint, a.tokenProgram, 'order\'s token account of the output mint'));
      return t.verdict();
    },
  };
}

/** A price bound of the order (an out amount per cycle, or none) against the intent's price, within BOUND_TOLERANCE_BPS. */
function checkBound(t: Terms, which: 'least' | 'most', found: bigint | null, price: number | undefined, perCycle: bigint, intent: { inputMint: string; outputMint: string }, accountAt: AccountAt): void {
  const none = found === null || found === 0n;
  if (price === undefined) {
    if (!none) t.fail('product-price-limit', `the order sets a ${which} output of ${found} a cycle; the intent sets no ${which === 'least' ? 'minPrice' : 'maxPrice'}`);
    return;
  }
  if (none) {
    t.fail('product-price-limit', `the order sets no ${which} output a cycle; the intent's ${which === 'least' ? 'minPrice' : 'maxPrice'} is ${price}`);
    return;
  }
  const inDecimals = mintDecimals(accountAt(intent.inputMint));
  const outDecimals = mintDecimals(accountAt(intent.outputMint));
  if (inDecimals === undefined || outDecimals === undefined) {
    t.fail('product-price-limit', `the ${which} output a cycle cannot be held to the intent's price: the chain holds no mint at ${inDecimals === undefined ? intent.inputMint : intent.outputMint}`);
    return;
  }
  const wanted = BigInt(Math.floor((Number(perCycle) / 10 ** inDecimals) * price * 10 ** outDecimals));
  const slack = wanted * BOUND_TOLERANCE_BPS / 10_000n + 1n;
  if (found < wanted - slack || found > wanted + slack) t.fail('product-price-limit', `the order's ${which} output a cycle is ${found}; the intent's price ${price} makes it ${wanted}`);
}

/**
 * A recurring order's `closeDca` held to the intent: the order named is the intent's and, as the chain holds it, a
 * DCA order of the wallet in the mints named with the escrow named; the wallet closes it; what the order holds of
 * either mint goes to the wallet's own token accounts, at least what each held, and nowhere else; the escrows are the
 * order's own token accounts.
 */
export function recurringCancelCheck(intent: Extract<Intent, { kind: 'recurring.cancel' }>, wallet: PublicKey): ProductCheck {
  const me = wallet.toBase58();
  return {
    kind: intent.kind,
    program: PROGRAM,
    reads: [],
    check(instructions, accountAt) {
      const t = new Terms();
      const ix = theInstruction(instructions, PROGRAM, decodeRecurringInstruction, 'closeDca', t);
      if (!ix) return t.verdict();
      const a = ix.accounts;
      t.same('product-target', 'the order closed', a.dca, intent.order);
      t.same('product-owner', 'the order\'s user', a.user, me);
      const held = accountAt(a.dca);
      const order = held && held.owner === PROGRAM ? decodeDcaAccount(held.data) : undefined;
      if (!order) {
        t.fail('product-target', `${a.dca} holds no order of the DCA program`);
      } else {
        t.same('product-owner', 'the user of the order on chain', order.user.toBase58(), me);
        t.same('product-mint', 'the input mint named', a.inputMint, order.inputMint.toBase58());
        t.same('product-mint', 'the output mint named', a.outputMint, order.outputMint.toBase58());
        t.same('product-escrow', 'the escrow named', a.inAta, order.inAccount.toBase58());
      }
      if (!isTokenProgram(a.tokenProgram)) {
        t.fail('product-escrow', `the token program ${a.tokenProgram} is neither token program`);
        return t.verdict();
      }
      t.same('product-escrow', 'the escrow (the order\'s token account of the input mint)', a.inAta, ata(a.dca, a.inputMint, a.tokenProgram));
      t.same('product-escrow', 'the order\'s token account of the output mint', a.outAta, ata(a.dca, a.outputMint, a.tokenProgram));
      t.same('product-payout', 'where the unspent input goes', a.userInAta, ata(me, a.inputMint, a.tokenProgram));
      t.same('product-payout', 'where the bought output goes', a.userOutAta, ata(me, a.outputMint, a.tokenProgram));
      t.payer(a.inAta);
      t.payer(a.outAta);
      t.payout({ mint: a.inputMint, least: balanceOf(a.inAta, accountAt), what: `the unspent input the order's escrow ${a.inAta} holds` });
      t.payout({ mint: a.outputMint, least: balanceOf(a.outAta, accountAt), what: `the bought output the order's account ${a.outAta} holds` });
      return t.verdict();
    },
  };
}
