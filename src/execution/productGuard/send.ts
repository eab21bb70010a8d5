import { PublicKey } from '@solana/web3.js';
import { decodeInviteInfoToken, decodeSendInstruction, INVITE_INFO_TOKEN_SIZE, invitePda, SEND_PROGRAM } from '../../jupiter/programs/send.js';
import type { Intent } from '../../sdk/intents.js';
import type { ProductCheck } from '../../solana/guardTypes.js';
import { ata, balanceOf, isTokenProgram, stateAccount, Terms, theInstruction, tokenAccount } from './terms.js';

const PROGRAM = SEND_PROGRAM.toBase58();

/**
 * A send's `initialize_token` held to the intent: the wallet sends from its own token account; the mint and amount
 * are the intent's; the invite signer is the one the keeper derived from its own code (never the venue's), the
 * invite account its PDA (["invite", signer]), which does not exist yet, and the escrow that PDA's token account of
 * the mint: the only account the amount may go into, and with the invite the only ones whose rent the wallet may pay.
 * The expiry is the venue's choice (the intent sets none): after it, the program returns the funds to the sender. The simulator
 * escrows SOL as wrapped SOL through this same instruction; the program's native-SOL twins are not in the layouts,
 * so a SOL send built with them is refused as another instruction.
 */
export function sendCheck(intent: Extract<Intent, { kind: 'send' }>, wallet: PublicKey, inviteSigner: string | undefined): ProductCheck {
  const me = wallet.toBase58();
  return {
    kind: intent.kind,
    program: PROGRAM,
    reads: [],
    check(instructions, accountAt) {
      const t = new Terms();
      const ix = theInstruction(instructions, PROGRAM, decodeSendInstruction, 'initializeToken', t);
      if (!ix) return t.verdict();
      const a = ix.accounts;
      t.same('product-owner', 'the sender', a.sender, me);
      t.same('product-mint', 'the mint sent', a.mint, intent.mint);
      t.same('product-amount', 'the amount sent', ix.amount, intent.amount);
      if (inviteSigner === undefined) t.fail('product-escrow', 'the keeper made no invite signer for this send, so no invite is its own');
      else t.same('product-escrow', 'the invite signer', a.inviteSigner, inviteSigner);
      const invite = invitePda(new PublicKey(a.inviteSigner)).address.toBase58();
      t.same('product-escrow', 'the invite account (PDA of ["invite", signer])', a.inviteInfo, invite);
      t.absent('product-target', 'new invite\'s account', a.inviteInfo, accountAt);
      if (!isTokenProgram(a.tokenProgram)) {
        t.fail('product-escrow', `the token program ${a.tokenProgram} is neither token program`);
        return t.verdict();
      }
      const escrow = ata(invite, intent.mint, a.tokenProgram);
      t.same('product-escrow', 'the escrow (the invite\'s token account of the mint)', a.escrow, escrow);
      t.same('product-owner', 'the account the tokens are sent from', a.senderTokenAccount, ata(me, intent.mint, a.tokenProgram));
      t.escrow(escrow);
      t.created(stateAccount(invite, PROGRAM, BigInt(INVITE_INFO_TOKEN_SIZE), 'invite account'));
      t.created(tokenAccount(escrow, intent.mint, a.tokenProgram, 'invite\'s escrow'));
      return t.verdict();
    },
  };
}

/**
 * A clawback's `clawback_token` held to the intent: the invite named is the intent's and, as the chain holds it, the
 * wallet's with the escrow named; the wallet signs as sender; the escrow is the invite's token account of the mint;
 * what it holds goes back to the wallet's own token account, all of it, and nowhere else.
 */
export function clawbackCheck(intent: Extract<Intent, { kind: 'send.clawback' }>, wallet: PublicKey): ProductCheck {
  const me = wallet.toBase58();
  return {
    kind: intent.kind,
    program: PROGRAM,
    reads: [],
    check(instructions, accountAt) {
      const t = new Terms();
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
