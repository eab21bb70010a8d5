import { PublicKey } from '@solana/web3.js';
import { hasDiscriminator, type RawInstruction } from '../../jupiter/programs/instruction.js';
import { decodeInviteInfo, decodeInviteInfoToken, decodeSendInstruction, INVITE_INFO_SIZE, INVITE_INFO_TOKEN_SIZE, invitePda, SEND_DISCRIMINATORS, SEND_PROGRAM } from '../../jupiter/programs/send.js';
import { WSOL_MINT } from '../../lib/mints.js';
import type { Intent } from '../../sdk/intents.js';
import type { ProductCheck, TopInstruction } from '../../solana/guardTypes.js';
import { ata, balanceOf, isTokenProgram, stateAccount, Terms, theInstruction, tokenAccount, type AccountAt } from './terms.js';

const PROGRAM = SEND_PROGRAM.toBase58();

/**
 * A send's `initialize_token` held to the intent: the wallet sends from its own token account; the mint and amount
 * are the intent's; the invite signer is the one the keeper derived from its own code (never the venue's), the
 * invite account its PDA (["invite", signer]), which does not exist yet, and the escrow that PDA's token account of
 * the mint: the only account the amount may go into, and with the invite the only ones whose rent the wallet may pay.
 * The expiry is the venue's choice (the intent sets none): after it, the program returns the funds to the sender.
 * A SOL send may instead be the program's native-SOL `initialize` (the simulator builds it when asked,
 * SendDesk.useNativeSol; which one the real craft-send returns is not known): the same sender, amount, invite signer
 * and new invite PDA, and the lamports escrowed in the invite account itself, the only account the amount may go into
 * and the only one whose rent (an InviteInfo's 48 bytes) the wallet may pay. A SOL send escrowed as wrapped SOL
 * through `initialize_token` stays accepted; any other mint's native `initialize` is not.
 */
export function sendCheck(intent: Extract<Intent, { kind: 'send' }>, wallet: PublicKey, inviteSigner: string | undefined): ProductCheck {
  const me = wallet.toBase58();
  return {
    kind: intent.kind,
    program: PROGRAM,
    reads: [],
    check(instructions, accountAt) {
      const t = new Terms();
      const native = intent.mint === WSOL_MINT && carries(instructions, SEND_DISCRIMINATORS.initialize);
      const ix = native ? theInstruction(instructions, PROGRAM, decodeSendInstruction, 'initialize', t) : theInstruction(instructions, PROGRAM, decodeSendInstruction, 'initializeToken', t);
      if (!ix) return t.verdict();
      const a = ix.accounts;
      t.same('product-owner', 'the sender', a.sender, me);
      if (ix.name === 'initializeToken') t.same('product-mint', 'the mint sent', ix.accounts.mint, intent.mint);
      t.same('product-amount', 'the amount sent', ix.amount, intent.amount);
      if (inviteSigner === undefined) t.fail('product-escrow', 'the keeper made no invite signer for this send, so no invite is its own');
      else t.same('product-escrow', 'the invite signer', a.inviteSigner, inviteSigner);
      const invite = invitePda(new PublicKey(a.inviteSigner)).address.toBase58();
      t.same('product-escrow', 'the invite account (PDA of ["invite", signer])', a.inviteInfo, invite);
      t.absent('product-target', 'new invite\'s account', a.inviteInfo, accountAt);
      if (ix.name === 'initialize') {
        // Native SOL: the invite account is the escrow, its lamports the invite.
        t.escrow(invite);
        t.created(stateAccount(invite, PROGRAM, BigInt(INVITE_INFO_SIZE), 'invite account (native SOL)'));
        return t.verdict();
      }
      const tokenProgram = ix.accounts.tokenProgram;
      if (!isTokenProgram(tokenProgram)) {
        t.fail('product-escrow', `the token program ${tokenProgram} is neither token program`);
        return t.verdict();
      }
      const escrow = ata(invite, intent.mint, tokenProgram);
      t.same('product-escrow', 'the escrow (the invite\'s token account of the mint)', ix.accounts.escrow, escrow);
      t.same('product-owner', 'the account the tokens are sent from', ix.accounts.senderTokenAccount, ata(me, intent.mint, tokenProgram));
      t.escrow(escrow);
      t.created(stateAccount(invite, PROGRAM, BigInt(INVITE_INFO_TOKEN_SIZE), 'invite account'));
      t.created(tokenAccount(escrow, intent.mint, tokenProgram, 'invite\'s escrow'));
      return t.verdict();
    },
  };
}

/**
 * A clawback held to the intent: the invite named is the intent's and, as the chain holds it, the wallet's; the
 * wallet signs as sender. A token invite's `clawback_token`: the escrow named is the invite's own (as the chain and
 * the ATA derivation say) and what it holds goes back to the wallet's own token account, all of it, and nowhere
 * else. A native-SOL invite's `clawback`: the invite account itself is the escrow, and every lamport it holds must
 * reach the wallet (counted with wrapped SOL), nothing leaving it for anyone else.
 */
export function clawbackCheck(intent: Extract<Intent, { kind: 'send.clawback' }>, wallet: PublicKey): ProductCheck {
  const me = wallet.toBase58();
  return {
    kind: intent.kind,
    program: PROGRAM,
    reads: [],
    check(instructions, accountAt) {
      const t = new Terms();
      if (carries(instructions, SEND_DISCRIMINATORS.clawback)) return nativeClawback(t, instructions, accountAt, intent.invitePda, me);
      const ix = theInstruction(instructions, PROGRAM, decodeSendInstruction, 'clawbackToken', t);
      if (!ix) return t.verdict();
      const a = ix.accounts;
      t.same('product-target', 'the invite clawed back', a.inviteInfo, intent.invitePda);
      t.same('product-owner', 'the sender', a.sender, me);
      const held = accountAt(a.inviteInfo);
      const invite = held && held.owner === PROGRAM ? decodeInviteInfoToken(held.data) : undefined;
      if (!invite) {
        t.fail('product-target', `${a.inviteInfo} holds no token invite of the send program`);
      } else {
        t.same('product-owner', 'the sender of the invite on chain', invite.sender.toBase58(), me);
        t.same('product-escrow', 'the escrow named', a.escrow, invite.escrow.toBase58());
      }
      if (!isTokenProgram(a.tokenProgram)) {
        t.fail('product-escrow', `the token program ${a.tokenProgram} is neither token program`);
        return t.verdict();
      }
      t.same('product-escrow', 'the escrow (the invite\'s token account of the mint)', a.escrow, ata(a.inviteInfo, a.mint, a.tokenProgram));
      t.same('product-payout', 'where the escrow goes back', a.senderTokenAccount, ata(me, a.mint, a.tokenProgram));
      t.payer(a.escrow);
      t.payout({ mint: a.mint, least: balanceOf(a.escrow, accountAt), what: `what the invite's escrow ${a.escrow} holds` });
      return t.verdict();
    },
  };
}

/** A native-SOL invite's `clawback` (see clawbackCheck). */
function nativeClawback(t: Terms, instructions: readonly TopInstruction[], accountAt: AccountAt, invitePdaOf: string, me: string): ReturnType<Terms['verdict']> {
  const ix = theInstruction(instructions, PROGRAM, decodeSendInstruction, 'clawback', t);
  if (!ix) return t.verdict();
  const a = ix.accounts;
  t.same('product-target', 'the invite clawed back', a.inviteInfo, invitePdaOf);
  t.same('product-owner', 'the sender', a.sender, me);
  const held = accountAt(a.inviteInfo);
  const invite = held && held.owner === PROGRAM ? decodeInviteInfo(held.data) : undefined;
  if (!held || !invite) {
    t.fail('product-target', `${a.inviteInfo} holds no native-SOL invite of the send program`);
    return t.verdict();
  }
  t.same('product-owner', 'the sender of the invite on chain', invite.sender.toBase58(), me);
  t.payer(a.inviteInfo);
  t.payout({ mint: WSOL_MINT, least: held.lamports, what: `every lamport the invite account ${a.inviteInfo} holds` });
  return t.verdict();
}

/** Whether an instruction of the send program starts with `discriminator`. */
function carries(instructions: readonly RawInstruction[], discriminator: Uint8Array): boolean {
  return instructions.some((ix) => ix.programId === PROGRAM && hasDiscriminator(ix.data, discriminator));
}
