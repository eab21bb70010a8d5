import type { PublicKey } from '@solana/web3.js';
import { decodeOrderAccount, decodeTriggerInstruction, FEE_ACCOUNT, ORDER_ACCOUNT_SIZE, orderAddress, TRIGGER_PROGRAM } from '../../jupiter/programs/trigger.js';
import { WSOL_MINT } from '../../lib/mints.js';
import type { Intent } from '../../sdk/intents.js';
import type { ProductCheck } from '../../solana/guardTypes.js';
import { ata, balanceOf, isTokenProgram, stateAccount, Terms, theInstruction, tokenAccount, type AccountAt } from './terms.js';

const PROGRAM = TRIGGER_PROGRAM.toBase58();

/**
 * A limit order's `initialize_order` held to the intent: maker and payer are the wallet, which pays from its own
 * account; input and output mints, making and taking amounts and the expiry are the intent's; the token programs are
 * the ones that own the mints on chain; no slippage (the intent's taking amount is exact), no integrator fee and no
 * referral, the fee account Jupiter's own (the program's ["fee"] PDA) or none; the order account is the program's PDA
 * of ["order", wallet, unique_id], does not exist yet, and its escrow (reserve) is that order's token account of the
 * input mint. The unique id itself is the venue's choice: any value gives an order of the wallet's own. The deposit
 * may go only into that reserve; the wallet may pay the rent of the order account (372 bytes) and of the reserve.
 */
export function triggerCreateCheck(intent: Extract<Intent, { kind: 'trigger.create' }>, wallet: PublicKey): ProductCheck {
  const me = wallet.toBase58();
  return {
    kind: intent.kind,
    program: PROGRAM,
    reads: [],
    check(instructions, accountAt) {
      const t = new Terms();
      const ix = theInstruction(instructions, PROGRAM, decodeTriggerInstruction, 'initializeOrder', t);
      if (!ix) return t.verdict();
      const { accounts: a, params: p } = ix;
      t.same('product-owner', 'the order\'s maker', a.maker, me);
      t.same('product-owner', 'the order\'s payer (who pays its rent)', a.payer, me);
      t.same('product-mint', 'the order\'s input mint', a.inputMint, intent.inputMint);
      t.same('product-mint', 'the order\'s output mint', a.outputMint, intent.outputMint);
      t.same('product-amount', 'the making amount', p.makingAmount, intent.makingAmount);
      t.same('product-amount', 'the taking amount', p.takingAmount, intent.takingAmount);
      t.same('product-schedule', 'the expiry (unix seconds)', p.expiredAt, intent.expiresAt === undefined ? null : BigInt(intent.expiresAt));
      if ((p.slippageBps ?? 0) !== 0) t.fail('product-price-limit', `a slippage of ${p.slippageBps} bps lets the order fill for less than the taking amount of ${intent.takingAmount}`);
      if ((p.feeBps ?? 0) !== 0) t.fail('product-fee', `an integrator fee of ${p.feeBps} bps is taken from the output; the intent asks for none`);
      if (a.referral !== PROGRAM) t.fail('product-fee', `the order names ${a.referral} as its referral (fee) account; the intent asks for none`);
      if (a.feeAccount !== FEE_ACCOUNT.toBase58() && a.feeAccount !== PROGRAM) t.fail('product-fee', `the order's fee account is ${a.feeAccount}, neither Jupiter's (${FEE_ACCOUNT.toBase58()}) nor none`);
      tokenProgramOf(t, 'input', intent.inputMint, a.inputTokenProgram, accountAt);
      tokenProgramOf(t, 'output', intent.outputMint, a.outputTokenProgram, accountAt);
      if (!isTokenProgram(a.inputTokenProgram)) {
        t.fail('product-escrow', `the input token program ${a.inputTokenProgram} is neither token program`);
        return t.verdict();
      }
      const order = orderAddress(wallet, p.uniqueId).address.toBase58();
      const reserve = ata(order, intent.inputMint, a.inputTokenProgram);
      t.same('product-escrow', 'the order account (PDA of ["order", maker, unique id])', a.order, order);
      t.same('product-escrow', 'the escrow (the order\'s token account of the input mint)', a.reserve, reserve);
      t.absent('product-target', 'new order\'s account', a.order, accountAt);
      const own = [me, ata(me, intent.inputMint, a.inputTokenProgram)];
      if (!own.includes(a.makerInputAccount)) t.fail('product-owner', `the input is pulled from ${a.makerInputAccount}, neither the wallet nor its own token account of ${intent.inputMint}`);
      t.escrow(reserve);
      t.created(stateAccount(order, PROGRAM, BigInt(ORDER_ACCOUNT_SIZE), 'order account'));
      t.created(tokenAccount(reserve, intent.inputMint, a.inputTokenProgram, 'order\'s escrow'));
      return t.verdict();
    },
  };
}

/** That `program` is the token program that owns `mint` on chain (the order would read and pay the mint through it). */
function tokenProgramOf(t: Terms, which: string, mint: string, program: string, accountAt: AccountAt): void {
  const held = accountAt(mint);
  if (!held) t.fail('product-mint', `the ${which} mint ${mint} is not on chain, so its token program cannot be checked`);
  else if (held.owner !== program) t.fail('product-mint', `the ${which} token program named is ${program}; the ${which} mint ${mint} is owned by ${held.owner}`);
}

/**
 * A limit order's `cancel_order` held to the intent: the order named is the intent's and, as the chain holds it, an
 * order of the trigger program whose maker is the wallet, in the input mint and with the escrow the instruction names;
 * the wallet signs as maker; the refund goes to the wallet's own token account of the input mint, or, for SOL, to
 * the wallet itself (the program id in that slot, the IDL's None), and at least what the escrow held must arrive;
 * what leaves the escrow goes nowhere else. One cancel: a second one in the transaction (a batch) is refused.
 */
export function triggerCancelCheck(intent: Extract<Intent, { kind: 'trigger.cancel' }>, wallet: PublicKey): ProductCheck {
  const me = wallet.toBase58();
  return {
    kind: intent.kind,
    program: PROGRAM,
    reads: [],
    check(instructions, accountAt) {
      const t = new Terms();
      const ix = theInstruction(instructions, PROGRAM, decodeTriggerInstruction, 'cancelOrder', t);
      if (!ix) return t.verdict();
      const a = ix.accounts;
      t.same('product-target', 'the order cancelled', a.order, intent.order);
      t.same('product-owner', 'the order\'s maker', a.maker, me);
      t.same('product-owner', 'the cancel\'s signer', a.signer, me);
      const held = accountAt(a.order);
      const order = held && held.owner === PROGRAM ? decodeOrderAccount(held.data) : undefined;
      if (!order) {
        t.fail('product-target', `${a.order} holds no order of the trigger program`);
      } else {
        t.same('product-owner', 'the maker of the order on chain', order.maker.toBase58(), me);
        t.same('product-mint', 'the input mint named', a.inputMint, order.inputMint.toBase58());
        t.same('product-escrow', 'the escrow named', a.reserve, order.inputMintReserve.toBase58());
      }
      if (!isTokenProgram(a.inputTokenProgram)) {
        t.fail('product-escrow', `the input token program ${a.inputTokenProgram} is neither token program`);
        return t.verdict();
      }
      t.same('product-escrow', 'the escrow (the order\'s token account of the input mint)', a.reserve, ata(a.order, a.inputMint, a.inputTokenProgram));
      const refundTo = a.makerInputAccount === PROGRAM ? (a.inputMint === WSOL_MINT ? me : null) : a.makerInputAccount;
      if (refundTo !== me && refundTo !== ata(me, a.inputMint, a.inputTokenProgram)) {
        t.fail('product-payout', `the refund goes to ${a.makerInputAccount === PROGRAM ? 'the maker as SOL, for an order not in SOL' : a.makerInputAccount}, not the wallet's own account of ${a.inputMint}`);
      }
      t.payer(a.reserve);
      t.payout({ mint: a.inputMint, least: balanceOf(a.reserve, accountAt), what: `the refund of what the order's escrow ${a.reserve} holds` });
      return t.verdict();
    },
  };
}
