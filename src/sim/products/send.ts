import { createHash } from 'node:crypto';
import { PublicKey } from '@solana/web3.js';
import { WSOL_MINT } from '../../lib/mints.js';
import { inviteKeypairFromCode } from '../../jupiter/send/inviteCode.js';
import { instructionHash } from '../chain/tickets.js';
import { LAMPORTS_PER_SIGNATURE } from '../chain/chain.js';
import type { ProductKeeper, Venue } from '../venue.js';
import type { ClaimBody, CraftClawbackBody, CraftSendBody, InviteListQuery } from '../http/requests/send.js';
import type { Reply } from './common.js';
import type { EscrowBook } from './escrow.js';
import { InviteBook, type Invite } from './sendBook.js';
import { SEND_PROGRAM, invitePda, inviteInfoData, inviteInfoTokenData } from '../../jupiter/programs/send.js';
import { claimInstructions, clawbackInstructions, expireInstructions, inviteRecord, SEND_PRIORITY_FEE_LAMPORTS, sendInstructions, type InviteTerms } from './sendTx.js';

/**
 * How long an invite stays claimable before it is returned to its sender. Not documented; the spec's examples
 * create an invite on 2025-03-15T10:30Z that expires on 2025-03-22T10:30Z: seven days.
 */
export const INVITE_LIFETIME_MS = 7 * 86_400_000;
/** How long the keeper's promise to co-sign a crafted clawback lasts (longer than a blockhash lives), sim ms. */
const CLAWBACK_TICKET_MS = 90_000;

/** A crafted send transaction the venue handed out and has not yet seen land. */
interface Craft {
  terms: InviteTerms;
  lastValidBlockHeight: bigint;
}

const bad = (error: string): Reply => ({ status: 400, body: { error } });

/**
 * The Send product (jupiter-api.md §10): invites whose funds sit in an escrow of the invite program, the escrow's
 * authority the invite PDA ["invite", inviteSigner]. craft-send hands out the sender's transaction; the invite
 * exists once that transaction lands (however it was sent: the desk watches the chain for the exact message it
 * crafted). A clawback is the sender's transaction, co-signed by the venue's keeper (the escrow's delegate); a
 * claim, which the real service takes only through Jupiter Mobile, is POST /__sim/send/claim with the code; an
 * expired invite goes back to its sender by the keeper. Each move is a real transaction on the ledger. A SOL invite
 * is escrowed as wrapped SOL through the token instructions, unless `useNativeSol(true)` has it made with the
 * program's native-SOL instructions (`initialize`, `clawback`, `claim`, `expire`: the lamports held by the invite
 * account itself). Which of the two the real craft-send returns for SOL is not known: none has been decoded.
 */
export class SendDesk implements ProductKeeper {
  readonly product = 'send';
  readonly book = new InviteBook();
  /** Crafted sends not seen on chain yet, by the hash of their message. */
  private readonly crafts = new Map<string, Craft>();
  /** Crafts that landed for an invite that already existed: the program would have refused them; the keeper refunds. */
  private readonly refunds: InviteTerms[] = [];
  private prunedAt = Number.NEGATIVE_INFINITY;
  /** SOL invites made with the program's native-SOL instructions, not as wrapped SOL (the default). */
  private nativeSol = false;

  constructor(
    private readonly venue: Venue,
    private readonly escrows: EscrowBook,
  ) {
    venue.registerKeeper(this);
    venue.chain.onChange((e) => {
      if (e.signature !== null && this.crafts.size > 0) this.onSettled(e.signature, e.slot);
    });
  }

  /** Whether SOL invites are crafted with the native-SOL `initialize` (true) or as wrapped SOL through `initialize_token` (false, the default). */
  useNativeSol(on: boolean): void {
    this.nativeSol = on;
  }

  /** POST /send/v1/craft-send. */
  craftSend(body: CraftSendBody): Reply {
    const v = this.venue;
    const token = v.token(body.mint ?? WSOL_MINT);
    if (!token) return bad(`Unsupported mint ${body.mint}`);
    const inviteSigner = new PublicKey(body.inviteSigner);
    const { address: pda, bump } = invitePda(inviteSigner);
    if (this.book.get(pda.toBase58())) return bad('Invite already exists for this inviteSigner');
    const sender = new PublicKey(body.sender);
    const expiryMs = v.clock.now() + INVITE_LIFETIME_MS;
    const native = v.isSol(token.mint) && this.nativeSol;
    const escrow = native ? pda : this.escrows.openEscrow('send', pda, token, sender);
    // The invite account is written when the send lands, as the program's initialize(_token) creates it: until then
    // nothing exists at its address (the guard refuses a new invite whose account does).
    const terms: InviteTerms = { pda, inviteSigner, sender, token, amount: body.amount, escrow, expiryMs, bump, native };
    const { tx, lastValidBlockHeight } = v.chain.buildTransaction(sender, sendInstructions(v, this.escrows, terms));
    this.crafts.set(messageHash(tx.message.serialize()), { terms, lastValidBlockHeight });
    // The sender pays two signatures (its own and the invite's) and the priority fee; the venue pays the rent of
    // the invite's accounts (see escrow.ts), which the real program charges the sender and refunds at clawback.
    const totalFeeLamports = 2n * LAMPORTS_PER_SIGNATURE + SEND_PRIORITY_FEE_LAMPORTS;
    return { status: 200, body: { tx: Buffer.from(tx.serialize()).toString('base64'), expiry: new Date(expiryMs).toISOString(), totalFeeLamports: totalFeeLamports.toString() } };
  }

  /** POST /send/v1/craft-clawback: the sender's transaction taking a pending invite back. */
  craftClawback(body: CraftClawbackBody): Reply {
    const v = this.venue;
    const invite = this.book.get(body.invitePDA);
    if (!invite) return bad('Invite not found');
    if (invite.terms.sender.toBase58() !== body.sender) return bad('Sender does not match the invite');
    if (invite.state !== 'pending') return bad(`Invite is no longer pending (${invite.state})`);
    const { instructions, venueSide } = clawbackInstructions(v, this.escrows, invite.terms);
    const { tx } = v.chain.buildTransaction(invite.terms.sender, instructions);
    const hashes = venueSide.map(instructionHash);
    v.tickets.add({
      id: `send-clawback:${body.invitePDA}:${hashes[0]!}`,
      cosigner: v.keeper,
      required: hashes,
      expiresAtMs: v.clock.now() + CLAWBACK_TICKET_MS,
      record: inviteRecord('send-clawback', invite.terms, invite.terms.sender),
      onLanded: (signature) => this.close(invite, 'clawback', signature, null),
    });
    return { status: 200, body: { tx: Buffer.from(tx.serialize()).toString('base64') } };
  }

  /** GET /send/v1/pending-invites: the sender's invites still claimable, newest first. */
  pendingInvites(q: InviteListQuery): Reply {
    return { status: 200, body: this.book.page(q.address, 'pending', q.page) };
  }

  /** GET /send/v1/invite-history: invites the address sent or received that ended, latest first. */
  inviteHistory(q: InviteListQuery): Reply {
    return { status: 200, body: this.book.page(q.address, 'history', q.page) };
  }

  /**
   * What Jupiter Mobile does with a code: derives the invite keypair, and has the keeper pay the escrow to
   * `receiver` in a transaction the invite signer co-signs (`claim_token`). The code never leaves this call.
   */
  claim(body: ClaimBody): Reply {
    const signer = inviteKeypairFromCode(body.code);
    const invite = this.book.get(invitePda(signer.publicKey).address.toBase58());
    if (!invite) return bad('Invite not found');
    if (invite.state !== 'pending') return bad(`Invite is no longer claimable (${invite.state})`);
    if (invite.terms.expiryMs <= this.venue.clock.now()) return bad('Invite has expired');
    const receiver = new PublicKey(body.receiver);
    let signature: string;
    try {
      signature = this.escrows.submitKeeper(claimInstructions(this.venue, this.escrows, invite.terms, receiver), inviteRecord('send-claim', invite.terms, receiver), [signer]);
    } catch (err) {
      return bad(`Claim failed: ${err instanceof Error ? err.message : String(err)}`);
    }
    this.close(invite, 'claimed', signature, receiver.toBase58());
    const t = invite.terms;
    return { status: 200, body: { signature, invitePDA: t.pda.toBase58(), receiver: receiver.toBase58(), mint: t.token.mint, amount: t.amount.toString() } };
  }

  /** Expires invites past their expiry, refunds duplicate deposits and forgets crafts that can no longer land. */
  tick(now: number): number {
    let done = 0;
    // A refund leaves the queue only once it landed: one that fails is tried again at the next run.
    for (let terms = this.refunds[0]; terms; terms = this.refunds[0]) {
      // A duplicate native send's lamports went to the existing invite account: the keeper pays them back, and the
      // venue takes them out of the invite, which holds its own amount again.
      const instructions = terms.native
        ? this.venue.transferInstructions(terms.token, this.venue.keeper.publicKey, terms.sender, terms.amount, this.venue.keeper.publicKey)
        : this.escrows.payoutInstructions(terms.escrow, terms.token, terms.sender, terms.amount);
      this.escrows.submitKeeper(instructions, inviteRecord('send-clawback', terms, terms.sender));
      const invite = terms.native ? this.venue.chain.account(terms.pda) : null;
      if (invite) this.venue.chain.setAccount(terms.pda, { ...invite, lamports: Number(BigInt(invite.lamports) - terms.amount) });
      this.refunds.shift();
      done += 1;
    }
    for (const invite of this.book.pendingInvites()) {
      if (invite.terms.expiryMs <= now) done += this.expire(invite);
    }
    this.prune(now);
    return done;
  }

  /** Expires one pending invite (by PDA) or all of them now, returning their funds to the senders. */
  expireNow(order: string | undefined): number {
    let done = 0;
    for (const invite of this.book.pendingInvites()) {
      if (order === undefined || order === invite.terms.pda.toBase58()) done += this.expire(invite);
    }
    return done;
  }

  private expire(invite: Invite): number {
    const signature = this.escrows.submitKeeper(expireInstructions(this.venue, this.escrows, invite.terms), inviteRecord('send-clawback', invite.terms, invite.terms.sender));
    this.close(invite, 'expired', signature, null);
    return 1;
  }

  private close(invite: Invite, state: Exclude<Invite['state'], 'pending'>, signature: string, receiver: string | null): void {
    this.book.close(invite, { state, signature, atMs: this.venue.clock.now(), receiver });
    // The program closes the invite account; the escrow is empty and no longer an open escrow.
    this.escrows.closeState(invite.terms.pda);
    this.escrows.forget(invite.terms.escrow);
  }

  /** A transaction settled: if it is a crafted send, its invite now exists (chain listeners must not throw). */
  private onSettled(signature: string, slot: bigint): void {
    try {
      const status = this.venue.chain.signatureStatus(signature);
      const tx = status?.landed?.tx;
      if (!tx || status.err !== null || !tx.message.staticAccountKeys.some((k) => k.equals(SEND_PROGRAM))) return;
      const hash = messageHash(tx.message.serialize());
      const craft = this.crafts.get(hash);
      if (!craft) return;
      this.crafts.delete(hash);
      const terms = craft.terms;
      this.venue.chain.recordLedger({ ...inviteRecord('send-invite', terms, terms.sender), signature, slot });
      if (this.book.get(terms.pda.toBase58())) {
        // A second crafted send for the same invite landed: the real program's `init` would have failed it.
        this.refunds.push(terms);
        return;
      }
      const expirySeconds = BigInt(Math.floor(terms.expiryMs / 1000));
      if (terms.native) {
        // The invite account holds the lamports sent (the program would also charge the sender its rent).
        this.venue.chain.setAccount(terms.pda, { lamports: Number(this.venue.chain.lamports(terms.pda)), data: inviteInfoData({ sender: terms.sender, expirySeconds }), owner: SEND_PROGRAM, executable: false });
      } else {
        this.escrows.writeState(SEND_PROGRAM, terms.pda, inviteInfoTokenData({ sender: terms.sender, inviteSigner: terms.inviteSigner, escrow: terms.escrow, expirySeconds, bump: terms.bump }));
      }
      this.book.open(terms, signature, this.venue.clock.now());
    } catch (err) {
      this.venue.lastKeeperError = `send: ${err instanceof Error ? err.message : String(err)}`;
    }
  }

  /** Forgets crafts whose blockhash expired, and the escrow of an invite that never came to be. */
  private prune(now: number): void {
    if (now - this.prunedAt < 1_000) return;
    this.prunedAt = now;
    const height = this.venue.clock.blockHeight();
    const dropped: InviteTerms[] = [];
    for (const [hash, craft] of this.crafts) {
      if (craft.lastValidBlockHeight < height) {
        this.crafts.delete(hash);
        dropped.push(craft.terms);
      }
    }
    const live = new Set([...this.crafts.values()].map((c) => c.terms.pda.toBase58()));
    for (const terms of dropped) {
      const pda = terms.pda.toBase58();
      const held = terms.native ? this.venue.chain.lamports(terms.pda) : this.escrows.balance(terms.escrow);
      if (live.has(pda) || this.book.get(pda) || held > 0n) continue;
      this.escrows.closeState(terms.pda);
      this.escrows.forget(terms.escrow);
    }
  }
}

function messageHash(message: Uint8Array): string {
  return createHash('sha256').update(message).digest('hex');
}
