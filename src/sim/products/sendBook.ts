import type { InviteTerms } from './sendTx.js';

/**
 * Invites per page of /pending-invites and /invite-history. Not documented (the spec has only `page` and
 * `hasMoreData`); ten, like the Trigger API's pages.
 */
export const INVITE_PAGE_SIZE = 10;

/** One invite that landed: pending until claimed, clawed back or expired. */
export interface Invite {
  terms: InviteTerms;
  state: 'pending' | 'claimed' | 'clawback' | 'expired';
  creationTx: string;
  creationMs: number;
  deletionTx: string | null;
  deletionMs: number | null;
  /** Who was paid by a claim; null otherwise. */
  receiver: string | null;
}

/**
 * The `action` of a listed invite. `created` and `claimed` are the spec's examples; the names of a clawback and an
 * expiry are not documented, and follow the program's instruction names (`clawback`, `expire`).
 */
const ACTION: Record<Invite['state'], string> = { pending: 'created', claimed: 'claimed', clawback: 'clawback', expired: 'expired' };

/** The invites of the venue, indexed by PDA and by the addresses that may list them. */
export class InviteBook {
  private readonly byPda = new Map<string, Invite>();
  private readonly pending = new Map<string, Invite>();
  /** Invites by sender, and by recipient once claimed (invite-history takes either). */
  private readonly byAddress = new Map<string, Invite[]>();

  /** The invite at a PDA (base58), pending or ended. */
  get(pda: string): Invite | undefined {
    return this.byPda.get(pda);
  }

  /** Pending invites, a snapshot (closing one while iterating is safe). */
  pendingInvites(): Invite[] {
    return [...this.pending.values()];
  }

  /** Records an invite whose send transaction landed. */
  open(terms: InviteTerms, creationTx: string, creationMs: number): Invite {
    const invite: Invite = { terms, state: 'pending', creationTx, creationMs, deletionTx: null, deletionMs: null, receiver: null };
    const pda = terms.pda.toBase58();
    this.byPda.set(pda, invite);
    this.pending.set(pda, invite);
    this.index(terms.sender.toBase58(), invite);
    return invite;
  }

  /** Moves an invite to history. */
  close(invite: Invite, end: { state: Exclude<Invite['state'], 'pending'>; signature: string; atMs: number; receiver: string | null }): void {
    invite.state = end.state;
    invite.deletionTx = end.signature;
    invite.deletionMs = end.atMs;
    invite.receiver = end.receiver;
    this.pending.delete(invite.terms.pda.toBase58());
    if (end.receiver !== null && end.receiver !== invite.terms.sender.toBase58()) this.index(end.receiver, invite);
  }

  /**
   * One page of an address's invites in the service's shape: pending ones it sent (newest first), or ended ones
   * it sent or received (latest ended first).
   */
  page(address: string, which: 'pending' | 'history', page: number): { invites: Array<Record<string, unknown>>; hasMoreData: boolean } {
    const all = (this.byAddress.get(address) ?? []).filter((i) => (which === 'pending' ? i.state === 'pending' && i.terms.sender.toBase58() === address : i.state !== 'pending'));
    all.sort(which === 'pending' ? (a, b) => b.creationMs - a.creationMs : (a, b) => (b.deletionMs ?? 0) - (a.deletionMs ?? 0));
    const from = (page - 1) * INVITE_PAGE_SIZE;
    return { invites: all.slice(from, from + INVITE_PAGE_SIZE).map(inviteJson), hasMoreData: all.length > from + INVITE_PAGE_SIZE };
  }

  private index(address: string, invite: Invite): void {
    let list = this.byAddress.get(address);
    if (!list) {
      list = [];
      this.byAddress.set(address, list);
    }
    list.push(invite);
  }
}

/**
 * An invite as the listings send it: snake_case, amounts as base-unit strings, times as ISO strings (the spec's
 * examples), `confirmed` as the schema's integer (its example's `true` contradicts the schema: jupiter-api.md §13.6).
 */
function inviteJson(i: Invite): Record<string, unknown> {
  const t = i.terms;
  return {
    invite_signer: t.inviteSigner.toBase58(),
    invite_pda: t.pda.toBase58(),
    sender: t.sender.toBase58(),
    expiry: new Date(t.expiryMs).toISOString(),
    amount: t.amount.toString(),
    creation_tx: i.creationTx,
    deletion_tx: i.deletionTx,
    receiver: i.receiver,
    action: ACTION[i.state],
    creation_time: new Date(i.creationMs).toISOString(),
    deletion_time: i.deletionMs === null ? null : new Date(i.deletionMs).toISOString(),
    mint: t.token.mint,
    confirmed: 1,
  };
}
